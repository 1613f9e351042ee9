; grammar: julia
; extensions: .jl
; manifests: Project.toml JuliaProject.toml
; bodies: block
; attached: string_literal
; Definitions of Julia: functions (long and short form), macros, modules, structs, abstract types.
; A docstring (a string literal directly above a definition) joins its chunk.
(function_definition (signature (call_expression . (identifier) @name))) @definition.function
(function_definition (signature (call_expression . (field_expression) @name))) @definition.function
(function_definition (signature (where_expression . (call_expression . (identifier) @name)))) @definition.function
(function_definition (signature (typed_expression . (call_expression . (identifier) @name)))) @definition.function
(assignment . (call_expression . (identifier) @name)) @definition.function
(assignment . (where_expression . (call_expression . (identifier) @name))) @definition.function
(function_definition (signature (call_expression . (curly_expression . (identifier) @name)))) @definition.function
(function_definition (signature (where_expression . (call_expression . (curly_expression . (identifier) @name))))) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.macro
(module_definition name: (identifier) @name) @definition.module
(struct_definition (type_head (identifier) @name)) @definition.class
(struct_definition (type_head (parametrized_type_expression . (identifier) @name))) @definition.class
(struct_definition (type_head (binary_expression . (identifier) @name))) @definition.class
(struct_definition (type_head (binary_expression . (parametrized_type_expression . (identifier) @name)))) @definition.class
(abstract_definition (type_head (identifier) @name)) @definition.type
