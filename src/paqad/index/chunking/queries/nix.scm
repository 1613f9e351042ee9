; grammar: nix
; extensions: .nix
; manifests: flake.nix default.nix shell.nix
; transparent: function_expression let_expression with_expression binding_set attrset_expression rec_attrset_expression
; bodies: attrset_expression rec_attrset_expression binding_set
; Definitions of Nix (checked on tree-sitter-language-pack 0.13.0's nix grammar): every binding of
; a let block or an attribute set defines its attribute path (`eachSystem = systems: f: ...;`,
; `packages.default = ...;`); a file's outer function (`{ lib, ... }:`), `let ... in` and attribute
; set are looked through. A binding whose value is an attribute set is a container.
(binding attrpath: (attrpath) @name expression: (attrset_expression)) @definition.class
(binding attrpath: (attrpath) @name expression: (rec_attrset_expression)) @definition.class
(binding attrpath: (attrpath) @name) @definition.function
