; grammar: elixir
; extensions: .ex .exs
; manifests: mix.exs
; excluded_dirs: _build deps .elixir_ls
; bodies: do_block
; attached: unary_operator
; Definitions of Elixir (checked on tree-sitter-language-pack 0.13.0's elixir grammar).
; Modules, protocols and implementations are containers; def/defp/defmacro/defguard are functions,
; with or without arguments, with a `when` guard.
(call target: (identifier) @_kw (#any-of? @_kw "defmodule" "defprotocol" "defimpl")
  (arguments . (alias) @name)) @definition.module
(call target: (identifier) @_kw (#any-of? @_kw "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate")
  (arguments . (call target: (identifier) @name))) @definition.function
(call target: (identifier) @_kw (#any-of? @_kw "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp")
  (arguments . (binary_operator left: (call target: (identifier) @name)))) @definition.function
(call target: (identifier) @_kw (#any-of? @_kw "def" "defp" "defmacro" "defmacrop")
  (arguments . (identifier) @name)) @definition.function
