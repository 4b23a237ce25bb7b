# Finds UMFPACK, KLU and CHOLMOD from SuiteSparse 5.x (Debian ships no CMake package for them).
# Defines the imported targets SuiteSparse::umfpack, SuiteSparse::klu, SuiteSparse::cholmod and SuiteSparse::amd.
find_path(SuiteSparse_INCLUDE_DIR umfpack.h PATH_SUFFIXES suitesparse)
foreach(lib umfpack klu btf cholmod amd colamd camd ccolamd suitesparseconfig)
  find_library(SuiteSparse_${lib}_LIBRARY NAMES ${lib})
endforeach()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SuiteSparse REQUIRED_VARS SuiteSparse_INCLUDE_DIR
  SuiteSparse_umfpack_LIBRARY SuiteSparse_klu_LIBRARY SuiteSparse_btf_LIBRARY SuiteSparse_cholmod_LIBRARY
  SuiteSparse_amd_LIBRARY
  SuiteSparse_colamd_LIBRARY SuiteSparse_suitesparseconfig_LIBRARY)
if(SuiteSparse_FOUND AND NOT TARGET SuiteSparse::umfpack)
  add_library(SuiteSparse::config UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::config PROPERTIES IMPORTED_LOCATION ${SuiteSparse_suitesparseconfig_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${SuiteSparse_INCLUDE_DIR})
  add_library(SuiteSparse::amd UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::amd PROPERTIES IMPORTED_LOCATION ${SuiteSparse_amd_LIBRARY}
                        INTERFACE_LINK_LIBRARIES SuiteSparse::config)
  add_library(SuiteSparse::cholmod UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::cholmod PROPERTIES IMPORTED_LOCATION ${SuiteSparse_cholmod_LIBRARY}
                        INTERFACE_LINK_LIBRARIES "SuiteSparse::amd;${SuiteSparse_colamd_LIBRARY};SuiteSparse::config")
  add_library(SuiteSparse::klu UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::klu PROPERTIES IMPORTED_LOCATION ${SuiteSparse_klu_LIBRARY}
                        INTERFACE_LINK_LIBRARIES "${SuiteSparse_btf_LIBRARY};SuiteSparse::amd;${SuiteSparse_colamd_LIBRARY};SuiteSparse::config")
  add_library(SuiteSparse::umfpack UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::umfpack PROPERTIES IMPORTED_LOCATION ${SuiteSparse_umfpack_LIBRARY}
                        INTERFACE_LINK_LIBRARIES "SuiteSparse::cholmod;SuiteSparse::amd;SuiteSparse::config")
endif()
mark_as_advanced(SuiteSparse_INCLUDE_DIR)
