# Each kernel file is compiled with the flags of its own ISA and nothing else,
# so one binary runs on any x86-64 CPU and picks at run time (never -march=native).
# -mprfchw: PREFETCHW (the 32 x 12 kernel's prefetch of C); every CPU with
# AVX-512F has it (Intel from Broadwell, AMD always), and it is only a hint.
set(RIDGE_FLAGS_avx512 -mprfchw -mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma -mf16c)
set(RIDGE_FLAGS_avx512bf16 ${RIDGE_FLAGS_avx512} -mavx512bf16)
set(RIDGE_FLAGS_amx ${RIDGE_FLAGS_avx512bf16} -mamx-tile -mamx-bf16)
set(RIDGE_FLAGS_avx2 -mavx2 -mfma -mf16c)
set(RIDGE_FLAGS_ref "")

# ridge_kernel_sources(<out-var> <dir>): the kernel sources under <dir>/<isa>/,
# each given its ISA's flags.
function(ridge_kernel_sources out_var dir)
  set(sources "")
  foreach(isa amx avx512bf16 avx512 avx2 ref)
    file(GLOB files CONFIGURE_DEPENDS "${dir}/${isa}/*.cpp")
    foreach(f ${files})
      if(RIDGE_FLAGS_${isa})
        set_source_files_properties(${f} PROPERTIES COMPILE_OPTIONS "${RIDGE_FLAGS_${isa}}")
      endif()
    endforeach()
    list(APPEND sources ${files})
  endforeach()
  set(${out_var} ${sources} PARENT_SCOPE)
endfunction()
