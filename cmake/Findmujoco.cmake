# MuJoCo's C library and headers from PyPI's `mujoco` wheel, which ships them beside its Python module
# (mujoco/libmujoco.so.<version>, mujoco/include/mujoco/*.h). scripts/install-deps.sh installs the pinned version
# into the project's .venv; TAMSI_MUJOCO_DIR points elsewhere (a mujoco module folder: python -c "import mujoco, os;
# print(os.path.dirname(mujoco.__file__))"). Gives the imported target mujoco::mujoco and mujoco_VERSION.
# Under pip (scikit-build-core sets SKBUILD), the mujoco of the build environment, which pyproject.toml pins to the
# version installed beside the package.
if(SKBUILD)
  execute_process(COMMAND ${Python_EXECUTABLE} -c
                  "import importlib.util as u; print(u.find_spec('mujoco').submodule_search_locations[0])"
                  OUTPUT_VARIABLE default_mujoco OUTPUT_STRIP_TRAILING_WHITESPACE)
else()
  file(GLOB default_mujoco "${PROJECT_SOURCE_DIR}/.venv/lib/python3*/site-packages/mujoco")
endif()
set(TAMSI_MUJOCO_DIR "${default_mujoco}" CACHE PATH "The mujoco Python module folder whose libmujoco tamsi links")
find_path(mujoco_INCLUDE_DIR mujoco/mujoco.h HINTS "${TAMSI_MUJOCO_DIR}/include" NO_DEFAULT_PATH)
file(GLOB mujoco_LIBRARY "${TAMSI_MUJOCO_DIR}/libmujoco.so.*")
if(mujoco_INCLUDE_DIR)
  file(STRINGS "${mujoco_INCLUDE_DIR}/mujoco/mujoco.h" version_line REGEX "#define mjVERSION_HEADER")
  string(REGEX REPLACE ".*mjVERSION_HEADER ([0-9]+).*" "\\1" version_number "${version_line}")
  math(EXPR major "${version_number} / 1000000")
  math(EXPR minor "(${version_number} / 1000) % 1000")
  math(EXPR patch "${version_number} % 1000")
  set(mujoco_VERSION "${major}.${minor}.${patch}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(mujoco REQUIRED_VARS mujoco_LIBRARY mujoco_INCLUDE_DIR VERSION_VAR mujoco_VERSION
                                  REASON_FAILURE_MESSAGE "run scripts/install-deps.sh, or set TAMSI_MUJOCO_DIR")
if(mujoco_FOUND AND NOT TARGET mujoco::mujoco)
  add_library(mujoco::mujoco SHARED IMPORTED)
  set_target_properties(mujoco::mujoco PROPERTIES IMPORTED_LOCATION "${mujoco_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${mujoco_INCLUDE_DIR}")
endif()
