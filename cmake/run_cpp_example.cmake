# The C++ API check run by ctest: installs this build to a scratch prefix, builds examples/cpp against it
# with find_package(tandem), and runs the program (which fails unless its fits converge).
foreach(step IN ITEMS
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${BUILD_DIR}/cpp-api/prefix"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR}/examples/cpp;-B;${BUILD_DIR}/cpp-api/build;-G;Ninja;-DCMAKE_BUILD_TYPE=Release;-DCMAKE_PREFIX_PATH=${BUILD_DIR}/cpp-api/prefix"
    "${CMAKE_COMMAND};--build;${BUILD_DIR}/cpp-api/build"
    "${BUILD_DIR}/cpp-api/build/train_linear")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "C++ API example: '${step}' failed (${rc})")
  endif()
endforeach()
