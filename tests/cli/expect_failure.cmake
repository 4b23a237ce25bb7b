# ctest driver: runs COMMAND (a ;-separated list) and passes only if it exits with EXIT_CODE and prints a line
# matching MESSAGE on stderr. UNSET_ENVIRONMENT: environment variables (a ;-separated list) removed before it runs.
foreach(variable IN LISTS UNSET_ENVIRONMENT)
  unset(ENV{${variable}})
endforeach()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL EXIT_CODE)
  message(FATAL_ERROR "exit status ${code}, expected ${EXIT_CODE}\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT err MATCHES "${MESSAGE}")
  message(FATAL_ERROR "stderr does not match '${MESSAGE}':\n${err}")
endif()
