; grammar: haskell
; extensions: .hs .lhs
; manifests: *.cabal stack.yaml cabal.project package.yaml
; excluded_dirs: dist-newstyle .stack-work
; transparent: declarations
; bodies: class_declarations instance_declarations
; attached: signature
; Definitions of Haskell. A function's type signature on the line above joins its chunk.
(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function
(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(class name: (name) @name) @definition.class
; An instance is named by its class and first type (`RandomGen.StdGen`), so it never takes the
; class's own name.
(instance name: (name) @name (type_patterns . (_) @name)) @definition.impl
(instance name: (name) @name) @definition.impl
; The module header names every top-level definition's module: `System.Random.Internal.uniformR`.
(header module: (module) @module)
