; grammar: sql
; extensions: .sql
; manifests: *.sql
; transparent: statement
; Definitions of SQL (checked on tree-sitter-language-pack 0.13.0's sql grammar, on PostgreSQL
; dumps and migrations): tables, views and materialized views (containers: their columns are
; the members), functions and types, named as written (`public.film_in_stock`). A project has no
; SQL manifest; its `.sql` files reveal it. Statements the grammar cannot parse (some PL/pgSQL
; bodies) are still cut, without a symbol.
(create_table (object_reference) @name) @definition.class
(create_view (object_reference) @name) @definition.class
(create_materialized_view (object_reference) @name) @definition.class
(create_function (object_reference) @name) @definition.function
(create_type (object_reference) @name) @definition.type
