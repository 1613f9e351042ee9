; grammar: graphql
; extensions: .graphql .graphqls .gql
; manifests: .graphqlrc .graphqlrc.* graphql.config.* subgraph.yaml *.graphql *.graphqls
; transparent: document definition type_system_definition type_definition type_system_extension type_extension executable_definition
; bodies: fields_definition input_fields_definition enum_values_definition
; Definitions of GraphQL (checked on tree-sitter-language-pack 0.13.0's graphql grammar): object,
; interface, input, enum, scalar and union types and directives of a schema; an `extend type`
; (an impl of the type it names); the named operations and fragments of documents. A schema file
; reveals the language itself (no manifest is common), hence `*.graphql` among the manifests.
(object_type_definition (name) @name) @definition.class
(interface_type_definition (name) @name) @definition.interface
(input_object_type_definition (name) @name) @definition.class
(enum_type_definition (name) @name) @definition.type
(scalar_type_definition (name) @name) @definition.type
(union_type_definition (name) @name) @definition.type
(directive_definition (name) @name) @definition.function
(object_type_extension (name) @name) @definition.impl
(interface_type_extension (name) @name) @definition.impl
(operation_definition (name) @name) @definition.function
(fragment_definition (fragment_name (name) @name)) @definition.function
