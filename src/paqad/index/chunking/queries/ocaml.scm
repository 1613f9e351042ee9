; grammar: ocaml
; extensions: .ml .mli .mll .mly
; manifests: dune-project *.opam
; excluded_dirs: _build _opam
; file_module: Stem
; bodies: module_binding structure signature class_binding object_expression
; Definitions of OCaml: let-bound functions, modules, module types, types and classes.
(value_definition (let_binding pattern: (value_name) @name (parameter))) @definition.function
(value_definition (let_binding pattern: (value_name) @name body: (fun_expression))) @definition.function
(value_definition (let_binding pattern: (value_name) @name body: (function_expression))) @definition.function
(value_specification (value_name) @name) @definition.function
(method_definition (method_name) @name) @definition.function
(module_definition (module_binding (module_name) @name)) @definition.module
(module_type_definition (module_type_name) @name) @definition.interface
(type_definition (type_binding name: (type_constructor) @name)) @definition.type
(class_definition (class_binding (class_name) @name)) @definition.class
