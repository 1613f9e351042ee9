; grammar: clojure
; extensions: .clj .cljs .cljc
; manifests: project.clj deps.edn shadow-cljs.edn bb.edn build.boot
; excluded_dirs: target .cpcache .shadow-cljs
; Definitions of Clojure (checked on tree-sitter-language-pack 0.13.0's clojure grammar, which
; parses forms, not meaning): a list whose head is a `def...` symbol and whose second element is
; a symbol (metadata such as `^:private` is part of it) defines that name. Protocols, records,
; types and interfaces are containers; every other `def...` form (defn, defn-, defmacro, def,
; defmulti, defmethod, and a project's own defining macros such as hiccup's `defelem`) a function.
(list_lit . (sym_lit (sym_name) @_kw) (#any-of? @_kw "defprotocol" "defrecord" "deftype" "definterface")
  . (sym_lit (sym_name) @name)) @definition.class
(list_lit . (sym_lit (sym_name) @_kw) (#match? @_kw "^def[a-z-]*$")
  . (sym_lit (sym_name) @name)) @definition.function
; The `ns` form names every definition's namespace: `hiccup.page.html5` (`hiccup.page/html5`).
(list_lit . (sym_lit (sym_name) @_ns) (#eq? @_ns "ns") . (sym_lit (sym_name) @module))
