# Header-only dependencies: from Debian's packages, or from DRAPE_DEPS_DIR, a folder that
# bench/gpu_check.sh fills from this machine's packages for a GPU machine that has none.
set(DRAPE_DEPS_DIR "" CACHE PATH "Bundled dependencies (include/glm, include/nlohmann, googletest)")
if(DRAPE_DEPS_DIR)
  foreach(dep glm nlohmann)
    if(NOT EXISTS ${DRAPE_DEPS_DIR}/include/${dep})
      message(FATAL_ERROR "DRAPE_DEPS_DIR=${DRAPE_DEPS_DIR} lacks include/${dep}")
    endif()
  endforeach()
  add_library(glm::glm INTERFACE IMPORTED)
  target_include_directories(glm::glm INTERFACE ${DRAPE_DEPS_DIR}/include)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${DRAPE_DEPS_DIR}/include)
  set(DRAPE_NANOVDB_INCLUDE ${DRAPE_DEPS_DIR}/include)
  set(DRAPE_STB_INCLUDE ${DRAPE_DEPS_DIR}/include)
else()
  find_package(glm REQUIRED)
  find_package(nlohmann_json 3.10 REQUIRED)
  find_path(DRAPE_NANOVDB_INCLUDE nanovdb/NanoVDB.h REQUIRED)
  find_path(DRAPE_STB_INCLUDE stb/stb_image_write.h REQUIRED)
endif()
add_library(drape_nanovdb INTERFACE)
target_include_directories(drape_nanovdb SYSTEM INTERFACE ${DRAPE_NANOVDB_INCLUDE})

# OpenVDB (host only) turns meshes into level sets and reads .vdb files. AUTO uses it when found;
# without it, mesh and vdb colliders are refused with a clear error.
set(DRAPE_OPENVDB AUTO CACHE STRING "Use OpenVDB for mesh and .vdb colliders: AUTO, ON or OFF")
set(DRAPE_HAVE_OPENVDB OFF)
if(NOT DRAPE_OPENVDB STREQUAL "OFF")
  # Debian's FindOpenVDB.cmake wants Boost components OpenVDB's headers do not need; the library
  # and its two runtime dependencies are found directly instead.
  find_path(DRAPE_OPENVDB_INCLUDE openvdb/openvdb.h)
  find_library(DRAPE_OPENVDB_LIB openvdb)
  find_library(DRAPE_TBB_LIB tbb)
  find_library(DRAPE_IMATH_LIB NAMES Imath-3_1 Imath)
  if(DRAPE_OPENVDB_INCLUDE AND DRAPE_OPENVDB_LIB AND DRAPE_TBB_LIB AND DRAPE_IMATH_LIB)
    add_library(drape_openvdb INTERFACE)
    target_include_directories(drape_openvdb SYSTEM INTERFACE ${DRAPE_OPENVDB_INCLUDE})
    target_link_libraries(drape_openvdb INTERFACE ${DRAPE_OPENVDB_LIB} ${DRAPE_TBB_LIB}
                          ${DRAPE_IMATH_LIB})
    set(DRAPE_HAVE_OPENVDB ON)
  elseif(DRAPE_OPENVDB STREQUAL "ON")
    message(FATAL_ERROR "DRAPE_OPENVDB=ON but OpenVDB was not found")
  endif()
endif()
message(STATUS "drape: OpenVDB: ${DRAPE_HAVE_OPENVDB}")

# Thrust and CUB (CCCL, from the CUDA toolkit) sort the self-collision hash: on the device in the
# cuda backend, on host threads (Thrust's OpenMP system) in the cpu backend.
# Beside nvcc first, wherever the toolkit is installed, so both compilers see one CCCL.
find_program(DRAPE_NVCC nvcc HINTS /usr/local/cuda/bin)
set(nvcc_include "")
if(DRAPE_NVCC)
  get_filename_component(nvcc_bin ${DRAPE_NVCC} DIRECTORY)
  set(nvcc_include ${nvcc_bin}/../include/cccl ${nvcc_bin}/../include)
endif()
find_path(DRAPE_CCCL_INCLUDE thrust/version.h
          HINTS ${DRAPE_DEPS_DIR}/include/cccl ${nvcc_include} /usr/local/cuda/include/cccl
                /usr/local/cuda/include /usr/include)
if(NOT DRAPE_CCCL_INCLUDE)
  message(FATAL_ERROR "Thrust (CCCL) not found: install the CUDA toolkit or set DRAPE_CCCL_INCLUDE")
endif()
add_library(drape_thrust INTERFACE)
target_include_directories(drape_thrust SYSTEM INTERFACE
                           $<$<COMPILE_LANGUAGE:CXX>:${DRAPE_CCCL_INCLUDE}>)
message(STATUS "drape: Thrust: ${DRAPE_CCCL_INCLUDE}")
