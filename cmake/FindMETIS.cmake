# Finds METIS 5 (Debian's libmetis-dev ships no CMake package). Defines the imported target METIS::metis.
find_path(METIS_INCLUDE_DIR metis.h)
find_library(METIS_LIBRARY NAMES metis)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(METIS REQUIRED_VARS METIS_INCLUDE_DIR METIS_LIBRARY)
if(METIS_FOUND AND NOT TARGET METIS::metis)
  add_library(METIS::metis UNKNOWN IMPORTED)
  set_target_properties(METIS::metis PROPERTIES IMPORTED_LOCATION ${METIS_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${METIS_INCLUDE_DIR})
endif()
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
