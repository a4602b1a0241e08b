# The library never aborts, exits or terminates: no entry point can reach a
# function that does, as far as the library's own imports show. Fails when
# libridge.so or libridge64.so imports any of them (nm -D --undefined-only), and
# names the object files that bring each one in.
#
# Scope: the libraries' direct imports. What a dependency does inside itself is
# not visible here: libgomp ends the process (gomp_fatal -> exit) when it cannot
# create a thread, and no OpenMP program can prevent that.
#
# -D variables: NM, LIBS (list), OBJECT_DIRS (list: where the libraries' .o files are).
foreach(var NM LIBS OBJECT_DIRS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_imports.cmake: -D${var}=... is required")
  endif()
endforeach()

# What ends the process, by symbol name:
# - libc: abort, exit and their kin; the failure paths of assert, of the stack
#   protector and of _FORTIFY_SOURCE checks;
# - the C++ runtime: std::terminate and every way to throw (with -fno-exceptions
#   any throw terminates): __cxa_throw and friends, libstdc++'s std::__throw_*
#   helpers (std::string, std::vector, std::mutex call them), and the throwing
#   operator new (std::bad_alloc; the nothrow forms are fine);
# - __cxa_thread_atexit(_impl): registering the destructor of a thread_local
#   object, which glibc does with calloc and, when that fails, ends in
#   __libc_fatal ("failed to register TLS destructor: out of memory"), an abort
#   (test_robustness_oom_first_call reproduces it).
set(forbidden_exact
  abort exit _exit _Exit quick_exit __assert_fail __assert_perror_fail __stack_chk_fail
  __fortify_fail __chk_fail __libc_fatal
  _ZSt9terminatev __cxa_throw __cxa_rethrow __cxa_allocate_exception __cxa_call_terminate
  __cxa_call_unexpected __cxa_pure_virtual __cxa_deleted_virtual __cxa_bad_cast __cxa_bad_typeid
  __cxa_throw_bad_array_new_length
  _Znwm _Znam _ZnwmSt11align_val_t _ZnamSt11align_val_t
  __cxa_thread_atexit __cxa_thread_atexit_impl)
# std::__throw_bad_alloc(), std::__throw_length_error(char const*), ... (mangled _ZSt<len>__throw_...).
set(forbidden_regex "^_ZSt[0-9]+__throw_")
# Imported, and not on the list, after thought:
# - __cxa_guard_acquire/__cxa_guard_release (thread-safe initialization of
#   function-local statics): they terminate only when a static's initializer
#   recursively re-enters its own initialization, a bug and not a runtime
#   condition; replacing every such static by pthread_once would buy nothing.
# - __cxa_atexit: its allocation failure is returned, not fatal.
# - GOMP_*: see the scope note above.

function(forbidden name out_var)
  set(hit OFF)
  list(FIND forbidden_exact "${name}" at)
  if(NOT at EQUAL -1 OR name MATCHES "${forbidden_regex}")
    set(hit ON)
  endif()
  set(${out_var} ${hit} PARENT_SCOPE)
endfunction()

# The undefined symbols of a file (-D: a shared library's dynamic imports),
# versions stripped (sym@GLIBC_2.2.5 -> sym).
function(undefined_symbols file dynamic out_var)
  set(flags --undefined-only)
  if(dynamic)
    list(PREPEND flags -D)
  endif()
  execute_process(COMMAND ${NM} ${flags} "${file}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${file}")
  endif()
  string(REGEX MATCHALL "[Uw] +[^\n]+" lines "${out}")
  set(names "")
  foreach(line ${lines})
    string(REGEX REPLACE "^[Uw] +([^@ ]+).*" "\\1" name "${line}")
    list(APPEND names "${name}")
  endforeach()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# Which object file imports what, read once.
set(objects "")
foreach(dir ${OBJECT_DIRS})
  file(GLOB_RECURSE found "${dir}/*.o")
  list(APPEND objects ${found})
endforeach()
set(index 0)
foreach(obj ${objects})
  undefined_symbols("${obj}" OFF obj_imports_${index})
  math(EXPR index "${index} + 1")
endforeach()

set(failures "")
foreach(lib ${LIBS})
  undefined_symbols("${lib}" ON imports)
  list(LENGTH imports count)
  message("${lib}: ${count} imports")
  foreach(name ${imports})
    forbidden("${name}" hit)
    if(NOT hit)
      continue()
    endif()
    execute_process(COMMAND c++filt "${name}" OUTPUT_VARIABLE pretty OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(sources "")
    set(index 0)
    foreach(obj ${objects})
      list(FIND obj_imports_${index} "${name}" found)
      if(NOT found EQUAL -1)
        string(REGEX REPLACE ".*\\.dir/(.*)\\.o$" "lib/\\1" source "${obj}")
        list(APPEND sources "${source}")
      endif()
      math(EXPR index "${index} + 1")
    endforeach()
    string(REPLACE ";" ", " sources "${sources}")
    string(APPEND failures "  ${lib}: ${pretty} (${name}), from ${sources}\n")
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "imports that can end the process:\n${failures}")
endif()
