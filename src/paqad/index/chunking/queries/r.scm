; grammar: r
; extensions: .r
; manifests: DESCRIPTION *.Rproj renv.lock
; excluded_dirs: renv packrat
; Definitions of R: `name <- function(...)`, `name = function(...)`, `name <<- function(...)`.
(binary_operator lhs: (identifier) @name operator: ["<-" "=" "<<-"] rhs: (function_definition)) @definition.function
(binary_operator lhs: (string) @name operator: ["<-" "=" "<<-"] rhs: (function_definition)) @definition.function
(binary_operator lhs: (function_definition) operator: "->" rhs: (identifier) @name) @definition.function
