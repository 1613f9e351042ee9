; grammar: perl
; extensions: .pl .pm .t .psgi
; manifests: Makefile.PL Build.PL cpanfile dist.ini META.json
; excluded_dirs: blib local .build
; Definitions of Perl: named subroutines (a `package Name;` statement is not a container).
(subroutine_declaration_statement name: (bareword) @name) @definition.function
(package_statement (package) @name (block)) @definition.module
; A `package URI::mailto;` statement (no block) names the module of the subs below it, up to the
; next one: `URI.mailto.query_form`.
(package_statement name: (package) @module .)
