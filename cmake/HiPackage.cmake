# `cpack -G DEB` (in the build folder): hipinfer_<version>_<arch>.deb with the `hipinfer` command,
# libhipinfer.so, the headers, the CMake package and the pkg-config file. Its Debian dependencies
# come from dpkg-shlibdeps (libprotobuf, libonnx, libdnnl, libgomp, ...), so
# `apt-get install ./hipinfer_*.deb` pulls them in. The Python component is the wheel's, not this.
set(CPACK_PACKAGE_NAME hipinfer)
set(CPACK_PACKAGE_VENDOR "hipinfer")
set(CPACK_PACKAGE_CONTACT "hipinfer developers <hipinfer@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Runs ONNX models on AMD and NVIDIA GPUs and the CPU")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
