# analyze's C++ runtime linked statically: libstdc++, libgcc and fmt's
# compiled part (the executables that set the target property
# RIDGELINE_STATIC_RUNTIME; importers/onnx_proto.cmake does the same for
# libprotobuf and ONNX's classes).
#
# Why: with libprotobuf and Abseil static, loading libfmt.so and the
# libstdc++.so it pulls in (mapping, relocation against their symbols,
# their static initializers) was the largest part of analyze's start-up:
# `analyze --help` took 6.1-6.7 ms with them and 4.1-5.1 ms without
# (perf stat -r 40; bench/README.md, "Whole process").
#
# Debian ships libstdc++.a but libfmt only shared, so fmt's compiled part is
# built here from the implementation header it installs
# (static_runtime/fmt_impl.cc). fmt::fmt then names an empty archive and, by
# the consumer, either that object or libfmt.so; the tests, tools and the
# Python module keep the shared libraries.
#
# libonnx's shape inference, dlopened as a helper module, brings the shared
# libstdc++ with it: the two copies never meet, because the module is
# reached through a C interface with serialized messages
# (importers/shapes/onnx_infer_abi.h) and analyze exports no C++ symbols.
#
# Off for sanitizer and fuzzing builds, or if the toolchain has no
# libstdc++.a. Sets RIDGELINE_STATIC_CXX_RUNTIME_OK (seen by tests/).

option(RIDGELINE_STATIC_CXX_RUNTIME
       "Link libstdc++, libgcc and fmt statically into analyze" ON)
set(RIDGELINE_STATIC_CXX_RUNTIME_OK OFF)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.a
                OUTPUT_VARIABLE libstdcxx_archive
                OUTPUT_STRIP_TRAILING_WHITESPACE)
get_target_property(fmt_shared fmt::fmt IMPORTED_LOCATION_NONE)
if(NOT RIDGELINE_STATIC_CXX_RUNTIME)
  message(STATUS "analyze links libstdc++ and fmt shared: option OFF")
elseif(RIDGELINE_SANITIZE OR RIDGELINE_FUZZ)
  message(STATUS "analyze links libstdc++ and fmt shared: sanitizer build")
elseif(NOT IS_ABSOLUTE "${libstdcxx_archive}" OR
       NOT EXISTS "${libstdcxx_archive}")
  message(STATUS "analyze links libstdc++ and fmt shared: no libstdc++.a")
elseif(NOT fmt_shared OR NOT fmt_shared MATCHES "\\.so[.0-9]*$")
  message(STATUS "analyze links libstdc++ and fmt shared: fmt::fmt is not "
                 "the shared library this expects (${fmt_shared})")
else()
  message(STATUS "analyze links libstdc++, libgcc and fmt statically")
  set(RIDGELINE_STATIC_CXX_RUNTIME_OK ON)
  add_library(ridgeline_fmt_static STATIC
              ${CMAKE_CURRENT_LIST_DIR}/static_runtime/fmt_impl.cc)
  target_include_directories(ridgeline_fmt_static SYSTEM PRIVATE
    $<TARGET_PROPERTY:fmt::fmt,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(ridgeline_fmt_static PRIVATE
    $<TARGET_PROPERTY:fmt::fmt,INTERFACE_COMPILE_DEFINITIONS>)
  set(fmt_empty_archive "${CMAKE_CURRENT_BINARY_DIR}/ridgeline_fmt_empty.a")
  file(WRITE "${fmt_empty_archive}" "!<arch>\n")
  set(static_runtime "$<BOOL:$<TARGET_PROPERTY:RIDGELINE_STATIC_RUNTIME>>")
  set_target_properties(fmt::fmt PROPERTIES
    IMPORTED_LOCATION_NONE "${fmt_empty_archive}" IMPORTED_SONAME_NONE ""
    INTERFACE_LINK_LIBRARIES
      "$<IF:${static_runtime},ridgeline_fmt_static,${fmt_shared}>")
endif()
set(RIDGELINE_STATIC_CXX_RUNTIME_OK ${RIDGELINE_STATIC_CXX_RUNTIME_OK}
    CACHE INTERNAL "analyze links libstdc++, libgcc and fmt statically")

# Sets `target`'s C++ runtime static when the checks above passed.
function(ridgeline_static_cxx_runtime target)
  set_target_properties(${target} PROPERTIES RIDGELINE_STATIC_RUNTIME ON)
  if(RIDGELINE_STATIC_CXX_RUNTIME_OK)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()
