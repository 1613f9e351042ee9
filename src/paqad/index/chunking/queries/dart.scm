; grammar: dart
; extensions: .dart
; manifests: pubspec.yaml
; excluded_dirs: .dart_tool
; bodies: class_body extension_body enum_body
; attached: annotation
; Definitions of Dart. A function's signature and body are sibling nodes on one line, so the
; chunker keeps them in one item.
(class_definition name: (identifier) @name) @definition.class
(mixin_declaration (identifier) @name) @definition.class
(extension_declaration name: (identifier) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.class
(function_signature name: (identifier) @name) @definition.function
(method_signature (function_signature name: (identifier) @name)) @definition.function
(method_signature (getter_signature name: (identifier) @name)) @definition.function
(method_signature (setter_signature name: (identifier) @name)) @definition.function
(method_signature (factory_constructor_signature (identifier) @name)) @definition.function
(method_signature (constructor_signature name: (_) @name)) @definition.function
(declaration (constructor_signature name: (_) @name)) @definition.function
