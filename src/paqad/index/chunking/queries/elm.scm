; grammar: elm
; extensions: .elm
; manifests: elm.json
; excluded_dirs: elm-stuff
; attached: type_annotation
; Definitions of Elm: functions and values (with their type annotation above), types, ports.
(value_declaration (function_declaration_left (lower_case_identifier) @name)) @definition.function
(type_declaration name: (upper_case_identifier) @name) @definition.type
(type_alias_declaration name: (upper_case_identifier) @name) @definition.type
(port_annotation name: (lower_case_identifier) @name) @definition.function
; The module header names every top-level definition's module: `Parser.Advanced.keyword`.
(module_declaration name: (upper_case_qid) @module)
