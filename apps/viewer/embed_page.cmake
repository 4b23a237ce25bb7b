# Writes OUTPUT, a C++ file defining tamsi::cli::kReplayPage: PAGE (page.html) with @VIEWER@ replaced by BUNDLE (the
# viewer and three.js in one minified script). Run by apps/CMakeLists.txt with -DPAGE= -DBUNDLE= -DOUTPUT=.
file(READ "${PAGE}" page)
file(READ "${BUNDLE}" bundle)
foreach(forbidden "</script" ")tamsi_page\"")
  string(FIND "${bundle}" "${forbidden}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${BUNDLE} contains '${forbidden}', which would end the page's script or the C++ literal")
  endif()
endforeach()
string(REPLACE "@VIEWER@" "${bundle}" page "${page}")
file(WRITE "${OUTPUT}.tmp" "// Generated from apps/viewer/page.html and the bundled viewer (three.js).\n"
                           "namespace tamsi::cli {\nextern const char kReplayPage[];\n"
                           "const char kReplayPage[] = R\"tamsi_page(${page})tamsi_page\";\n}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
