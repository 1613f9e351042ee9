; grammar: cmake
; extensions: .cmake
; filenames: CMakeLists.txt
; manifests: CMakeLists.txt
; excluded_dirs: CMakeFiles cmake-build-debug cmake-build-release
; transparent: if_condition foreach_loop while_loop block_def
; bodies: body
; Definitions of CMake (checked on tree-sitter-language-pack 0.13.0's cmake grammar): functions
; and macros, and the targets a project builds (`add_library(yaml-cpp ...)`, `add_executable`,
; `add_custom_target`; commands are case-insensitive), also inside `if`/`foreach` blocks, which
; are looked through.
(function_def (function_command (argument_list . (argument) @name))) @definition.function
(macro_def (macro_command (argument_list . (argument) @name))) @definition.function
(normal_command (identifier) @_cmd (#match? @_cmd "(?i)^(add_library|add_executable|add_custom_target)$")
  (argument_list . (argument) @name)) @definition.function
