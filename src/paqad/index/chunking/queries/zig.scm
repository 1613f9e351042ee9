; grammar: zig
; extensions: .zig .zon
; manifests: build.zig build.zig.zon
; excluded_dirs: zig-cache .zig-cache zig-out
; bodies: VarDecl ErrorUnionExpr SuffixExpr ContainerDecl
; Definitions of Zig: functions, and `const Name = struct/enum/union {...}` containers.
(Decl (FnProto (IDENTIFIER) @name)) @definition.function
(Decl (VarDecl (IDENTIFIER) @name (ErrorUnionExpr (SuffixExpr (ContainerDecl))))) @definition.class
