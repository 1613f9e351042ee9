; grammar: erlang
; extensions: .erl .hrl .escript
; manifests: rebar.config erlang.mk
; excluded_dirs: _build ebin .rebar3 deps
; attached: spec
; Definitions of Erlang: one function (all its clauses), records, types, macros.
(fun_decl . (function_clause name: (atom) @name)) @definition.function
(record_decl name: (atom) @name) @definition.type
(type_alias name: (type_name name: (atom) @name)) @definition.type
(pp_define lhs: (macro_lhs name: (_) @name)) @definition.macro
; `-module(ranch).` names every definition's module: `ranch.handshake` (`ranch:handshake` in Erlang).
(module_attribute name: (atom) @module)
