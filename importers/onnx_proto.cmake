# ONNX's generated protobuf classes and libprotobuf, linked statically into
# the executables that ask for it (target property RIDGELINE_STATIC_RUNTIME:
# analyze), shared everywhere else.
#
# Why: loading libprotobuf.so and libonnx_proto.so (their relocations, symbol
# lookups and static initializers) was a third of a zoo run
# of analyze and most of its start-up (bench/README.md, "Whole process").
# Debian ships libprotobuf.a but no libonnx_proto.a, so the classes are
# generated here, with Debian's protoc, from the onnx.proto Debian installs
# (the lite-runtime variant of onnx-ml.proto: its LITE_RUNTIME option is
# dropped and the two ONNX-ML-only declarations of TypeProto, Opaque and
# opaque_type = 7, added back). The generated header must then be
# byte-identical to the installed onnx/onnx-ml.pb.h that the project's code
# compiles against; if it is not (another ONNX or protobuf release), or the
# archive is missing, or this is a sanitizer or fuzzing build, everything
# links the shared libraries as before and a status message says why.
#
# libstdc++, libgcc and fmt are made static the same way by
# tools/static_runtime.cmake.
#
# Defines the interface target ridgeline_onnx_proto (what ridgeline_importers
# links) and RIDGELINE_STATIC_PROTO_OK.
#
# A process with the static classes must not hand them to libonnx (built
# against the shared ones): libonnx's shape inference is reached through a
# helper module that exchanges serialized messages (shapes/onnx_infer_main.cc).

option(RIDGELINE_STATIC_PROTO
       "Link libprotobuf and ONNX's classes statically into analyze"
       ON)
set(RIDGELINE_STATIC_PROTO_OK OFF)
set(static_proto_why "")
if(NOT RIDGELINE_STATIC_PROTO)
  set(static_proto_why "RIDGELINE_STATIC_PROTO is OFF")
elseif(RIDGELINE_SANITIZE OR RIDGELINE_FUZZ)
  set(static_proto_why "sanitizer or fuzzing build")
else()
  find_file(RIDGELINE_ONNX_PROTO_SOURCE onnx/onnx.proto)
  find_file(RIDGELINE_ONNX_PB_HEADER onnx/onnx-ml.pb.h)
  get_target_property(protobuf_location protobuf::libprotobuf
                      IMPORTED_LOCATION_RELEASE)
  if(NOT protobuf_location)
    get_target_property(protobuf_location protobuf::libprotobuf
                        IMPORTED_LOCATION)
  endif()
  string(REGEX REPLACE "\\.so[.0-9]*$" ".a" protobuf_archive
                       "${protobuf_location}")
  if(NOT RIDGELINE_ONNX_PROTO_SOURCE OR NOT RIDGELINE_ONNX_PB_HEADER)
    set(static_proto_why "onnx/onnx.proto or onnx/onnx-ml.pb.h not found")
  elseif(NOT EXISTS "${protobuf_archive}" OR
         protobuf_archive STREQUAL protobuf_location)
    set(static_proto_why "no libprotobuf.a beside ${protobuf_location}")
  else()
    set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/onnx_proto)
    file(READ ${RIDGELINE_ONNX_PROTO_SOURCE} proto_text)
    string(REPLACE "option optimize_for = LITE_RUNTIME;" "" proto_text
                   "${proto_text}")
    string(REPLACE
      "\n  oneof value {\n    // The type of a tensor."
      "\n  message Opaque {\n    optional string domain = 1;\n    optional string name = 2;\n  }\n\n  oneof value {\n    // The type of a tensor."
      proto_text "${proto_text}")
    string(REPLACE
      "    SparseTensor sparse_tensor_type = 8;\n"
      "    SparseTensor sparse_tensor_type = 8;\n\n    Opaque opaque_type = 7;\n"
      proto_text "${proto_text}")
    file(CONFIGURE OUTPUT ${gen_dir}/src/onnx/onnx-ml.proto
         CONTENT "${proto_text}" @ONLY)
    file(MAKE_DIRECTORY ${gen_dir}/out)
    execute_process(
      COMMAND ${Protobuf_PROTOC_EXECUTABLE}
              --cpp_out=dllexport_decl=ONNX_API:${gen_dir}/out
              -I ${gen_dir}/src ${gen_dir}/src/onnx/onnx-ml.proto
      RESULT_VARIABLE protoc_rc ERROR_VARIABLE protoc_err)
    if(NOT protoc_rc EQUAL 0)
      set(static_proto_why "protoc failed: ${protoc_err}")
    else()
      execute_process(
        COMMAND ${CMAKE_COMMAND} -E compare_files
                ${gen_dir}/out/onnx/onnx-ml.pb.h ${RIDGELINE_ONNX_PB_HEADER}
        RESULT_VARIABLE differ)
      if(differ)
        set(static_proto_why
            "the generated onnx-ml.pb.h differs from ${RIDGELINE_ONNX_PB_HEADER}")
      else()
        set(RIDGELINE_STATIC_PROTO_OK ON)
      endif()
    endif()
  endif()
endif()

add_library(ridgeline_onnx_proto INTERFACE)
if(RIDGELINE_STATIC_PROTO_OK)
  message(STATUS "analyze links libprotobuf and ONNX's classes statically")
  # The generated source is compiled against the installed header (identical)
  # with onnx_pb.h's ONNX_API.
  add_library(ridgeline_onnx_proto_static STATIC
              ${gen_dir}/out/onnx/onnx-ml.pb.cc)
  target_compile_options(ridgeline_onnx_proto_static PRIVATE
                         -include onnx/onnx_pb.h)
  target_include_directories(ridgeline_onnx_proto_static SYSTEM PRIVATE
    $<TARGET_PROPERTY:onnx_proto,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(ridgeline_onnx_proto_static PRIVATE
    $<TARGET_PROPERTY:onnx_proto,INTERFACE_COMPILE_DEFINITIONS>)
  add_library(ridgeline_protobuf_static STATIC IMPORTED)
  set_target_properties(ridgeline_protobuf_static PROPERTIES
    IMPORTED_LOCATION "${protobuf_archive}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
  set(static_runtime "$<BOOL:$<TARGET_PROPERTY:RIDGELINE_STATIC_RUNTIME>>")
  # Headers and definitions come with onnx_proto's interface either way.
  target_include_directories(ridgeline_onnx_proto INTERFACE
    $<TARGET_PROPERTY:onnx_proto,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(ridgeline_onnx_proto INTERFACE
    $<TARGET_PROPERTY:onnx_proto,INTERFACE_COMPILE_DEFINITIONS>)
  target_link_libraries(ridgeline_onnx_proto INTERFACE
    "$<IF:${static_runtime},ridgeline_onnx_proto_static;ridgeline_protobuf_static,onnx_proto;protobuf::libprotobuf>")
else()
  message(STATUS "analyze links libprotobuf shared: ${static_proto_why}")
  target_link_libraries(ridgeline_onnx_proto INTERFACE onnx_proto
                        protobuf::libprotobuf)
endif()
# Seen by tests/CMakeLists.txt (analyze_links_protobuf_statically).
set(RIDGELINE_STATIC_PROTO_OK ${RIDGELINE_STATIC_PROTO_OK} CACHE INTERNAL
    "analyze links libprotobuf and ONNX's classes statically")
