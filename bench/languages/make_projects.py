"""Writes projects/*.json from the hand-written cases below (queries written from each project's
README and docs before the tool was run on it; labels from reading the code). Run once:
    python bench/languages/make_projects.py
"""

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "ranking"))
from corpora import MIRROR_ROOT as MIRROR  # noqa: E402  - the clones (PAQAD_BENCH_MIRROR); only HEAD is read

# name, language, repo, split, description, cases
# symbol case: ("s", query, path, line[, extra expected paths])
# where/architecture case: ("w"|"a", query, {path: grade})
PROJECTS = [
    ("mint", "elixir", "elixir-mint/mint", "dev", "functional HTTP/1 and HTTP/2 client", [
        ("s", "Mint.HTTP.connect", "lib/mint/http.ex", 479),
        ("s", "Mint.HTTP.request", "lib/mint/http.ex", 673),
        ("s", "Mint.HTTP.stream", "lib/mint/http.ex", 912),
        ("s", "Mint.HTTP.set_mode", "lib/mint/http.ex", 993),
        ("s", "controlling_process", "lib/mint/http.ex", 1031, ["lib/mint/http1.ex", "lib/mint/http2.ex"]),
        ("w", "how does connect choose between HTTP/1 and HTTP/2 with ALPN", {"lib/mint/negotiate.ex": 2, "lib/mint/http.ex": 1}),
        ("w", "where are TCP and SSL messages turned into status, headers and data responses for HTTP/1",
         {"lib/mint/http1.ex": 2, "lib/mint/http1/response.ex": 1, "lib/mint/http1/parse.ex": 1}),
        ("w", "how is a connection tunnelled through an HTTP proxy with CONNECT", {"lib/mint/tunnel_proxy.ex": 2, "lib/mint/http.ex": 1}),
        ("w", "where are HTTP/2 frames encoded and decoded", {"lib/mint/http2/frame.ex": 2, "lib/mint/http2.ex": 1}),
        ("a", "which modules wrap the TCP and SSL sockets behind one transport interface",
         {"lib/mint/core/transport.ex": 2, "lib/mint/core/transport/tcp.ex": 2, "lib/mint/core/transport/ssl.ex": 2}),
        # round 3 (issue 22): one name defined in several modules, written from the code before the tool ran
        ("s", "Mint.HTTP2.request", "lib/mint/http2.ex", 567, ["lib/mint/http.ex", "lib/mint/http1.ex"]),
        ("s", "Mint.HTTP1.recv", "lib/mint/http1.ex", 570, ["lib/mint/http.ex", "lib/mint/http2.ex"]),
        ("s", "get_proxy_headers", "lib/mint/http.ex", 1137, ["lib/mint/http1.ex", "lib/mint/http2.ex"]),
        ("s", "Mint.Core.Transport.SSL.controlling_process", "lib/mint/core/transport/ssl.ex", 404,
         ["lib/mint/core/transport/tcp.ex", "lib/mint/http.ex"]),
    ]),
    ("args", "dart", "dart-lang/args", "dev", "command-line argument parser for Dart", [
        ("s", "ArgParser.addFlag", "lib/src/arg_parser.dart", 129, ["lib/src/allow_anything_parser.dart"]),
        ("s", "addMultiOption", "lib/src/arg_parser.dart", 248, ["lib/src/allow_anything_parser.dart"]),
        ("s", "ArgResults.wasParsed", "lib/src/arg_results.dart", 144),
        ("s", "CommandRunner.runCommand", "lib/command_runner.dart", 154),
        ("s", "UsageException", "lib/src/usage_exception.dart", 5),
        ("w", "how are the usage help lines for all options laid out and wrapped", {"lib/src/usage.dart": 2, "lib/src/arg_parser.dart": 1}),
        ("w", "where are abbreviations like -v and combined short flags like -abc parsed", {"lib/src/parser.dart": 2}),
        ("w", "how does the command runner print help for a command and its subcommands",
         {"lib/command_runner.dart": 2, "lib/src/help_command.dart": 2}),
        ("w", "where is an option's allowed values and default value stored", {"lib/src/option.dart": 2, "lib/src/arg_parser.dart": 1}),
        ("a", "which part dispatches the parsed arguments to the matching command's run method", {"lib/command_runner.dart": 2}),
        # round 3: a method of ArgParser that AllowAnythingParser overrides (@override)
        ("s", "addSeparator", "lib/src/arg_parser.dart", 327, ["lib/src/allow_anything_parser.dart"]),
        ("s", "findByAbbreviation", "lib/src/arg_parser.dart", 357, ["lib/src/allow_anything_parser.dart"]),
        ("s", "AllowAnythingParser.addOption", "lib/src/allow_anything_parser.dart", 45, ["lib/src/arg_parser.dart"]),
    ]),
    ("random", "haskell", "haskell/random", "dev", "pseudo-random number generators for Haskell", [
        ("s", "uniformR", "src/System/Random.hs", 229),
        ("s", "mkStdGen", "src/System/Random/Internal.hs", 819),
        ("s", "initStdGen", "src/System/Random.hs", 608),
        ("s", "uniformListM", "src/System/Random/Internal.hs", 761),
        ("s", "class RandomGen", "src/System/Random/Internal.hs", 156),
        ("w", "how does the global standard generator get split when newStdGen is called", {"src/System/Random.hs": 2}),
        ("w", "where are random values generated from a mutable generator in a monad", {"src/System/Random/Stateful.hs": 2, "src/System/Random/Internal.hs": 1}),
        ("w", "how is a uniformly distributed Double in a range computed", {"src/System/Random/Internal.hs": 2}),
        ("w", "where are generator seeds serialised to and from bytes", {"src/System/Random/Seed.hs": 2}),
        ("a", "which module defines the type classes every generator must implement", {"src/System/Random/Internal.hs": 2}),
    ]),
    ("zig-clap", "zig", "Hejsil/zig-clap", "dev", "command line argument parsing library for Zig", [
        ("s", "parseParamsComptime", "clap.zig", 97),
        ("s", "parseEx", "clap.zig", 742),
        ("s", "Diagnostic.report", "clap.zig", 541),
        ("s", "enumeration", "clap/parsers.zig", 104),
        ("s", "usage", "clap.zig", 2054),
        ("w", "how is the help text printed with descriptions aligned", {"clap.zig": 2}),
        ("w", "where are integer and float values of arguments parsed", {"clap/parsers.zig": 2}),
        ("w", "how does the streaming parser return one argument at a time", {"clap/streaming.zig": 2}),
        ("w", "where does the argument iterator walk a slice of strings", {"clap/args.zig": 2}),
        ("a", "how are parameters declared from a help string turned into a parser at compile time", {"clap.zig": 2}),
        # round 3: `parse` of the package's root file and the value parsers' private ones
        ("s", "parse", "clap.zig", 646, ["clap/parsers.zig"]),
    ]),
    ("angstrom", "ocaml", "inhabitedtype/angstrom", "dev", "parser combinators for OCaml built for speed", [
        ("s", "parse_string", "lib/angstrom.ml", 745, ["lib/angstrom.mli"]),
        ("s", "take_while1", "lib/angstrom.ml", 448, ["lib/angstrom.mli"]),
        ("s", "sep_by", "lib/angstrom.ml", 522, ["lib/angstrom.mli"]),
        ("s", "choice", "lib/angstrom.ml", 454, ["lib/angstrom.mli"]),
        ("s", "advance", "lib/angstrom.ml", 221, ["lib/angstrom.mli"]),
        ("w", "how does the parser keep unconsumed input between incremental reads", {"lib/buffering.ml": 2, "lib/angstrom.ml": 1}),
        ("w", "where is the parser state with continuations for partial input defined", {"lib/parser.ml": 2}),
        ("w", "how is backtracking limited with commit", {"lib/angstrom.ml": 2, "lib/parser.ml": 1}),
        ("w", "how is a JSON parser written with these combinators in the tests", {"lib_test/test_json.ml": 2}),
        ("a", "which module reads from the bigstring input and tracks the committed position", {"lib/input.ml": 2}),
        # round 3: Buffered's functions beside Parser's and Exported_state's of the same name
        ("s", "Buffered.parse", "lib/angstrom.ml", 80, ["lib/parser.ml"]),
        ("s", "Angstrom.Buffered.state_to_result", "lib/angstrom.ml", 125, ["lib/exported_state.ml"]),
    ]),
    ("datastructures", "julia", "JuliaCollections/DataStructures.jl", "dev", "data structures for Julia", [
        ("s", "counter", "src/accumulator.jl", 33),
        ("s", "nlargest", "src/heaps.jl", 151),
        ("s", "CircularBuffer", "src/circular_buffer.jl", 11),
        ("s", "Trie", "src/trie.jl", 1),
        ("s", "MutableLinkedList", "src/mutable_list.jl", 17),
        ("w", "how does the disjoint set find the root with path compression", {"src/disjoint_set.jl": 2}),
        ("w", "where is the binary heap sifted up and down after a push or pop", {"src/heaps/arrays_as_heaps.jl": 2, "src/heaps/binary_heap.jl": 1}),
        ("w", "how does the Robin Hood dictionary probe for a free slot", {"src/robin_dict.jl": 2, "src/ordered_robin_dict.jl": 1}),
        ("w", "how is a red-black tree rebalanced after insertion", {"src/red_black_tree.jl": 2}),
        ("a", "which files implement the sorted containers and their token based iteration",
         {"src/sorted_dict.jl": 2, "src/balanced_tree.jl": 2, "src/sorted_container_iteration.jl": 2, "src/tokens.jl": 1}),
    ]),
    ("glue", "r", "tidyverse/glue", "test", "glue strings to data in R", [
        ("s", "glue_data", "R/glue.R", 90),
        ("s", "glue_collapse", "R/glue.R", 261),
        ("s", "glue_sql", "R/sql.R", 139),
        ("s", "trim", "R/glue.R", 314),
        ("s", "glue_col", "R/color.R", 59),
        ("w", "how are values quoted safely for a SQL connection", {"R/sql.R": 2, "R/quoting.R": 1}),
        ("w", "where are the braces in the template found and the code inside them evaluated", {"src/glue.c": 2, "R/glue.R": 1}),
        ("w", "how is the glue engine registered for knitr chunks", {"R/knitr.R": 2, "R/zzz.R": 1}),
        ("w", "where are colors and styles from crayon applied in templates", {"R/color.R": 2}),
        ("a", "which function turns the text inside each brace into a value, and how can it be replaced", {"R/transformer.R": 2, "R/glue.R": 1}),
    ]),
    ("uri", "perl", "libwww-perl/URI", "test", "uniform resource identifiers for Perl", [
        ("s", "uri_escape", "lib/URI/Escape.pm", 167),
        ("s", "uri_unescape", "lib/URI/Escape.pm", 216),
        ("s", "query_form", "lib/URI/_query.pm", 31),
        ("s", "path_segments", "lib/URI/_generic.pm", 122),
        ("s", "new_abs", "lib/URI.pm", 87, ["lib/URI/WithBase.pm"]),
        ("w", "how is a relative URI resolved against a base URI", {"lib/URI/_generic.pm": 2, "lib/URI.pm": 1}),
        ("w", "where are host and port read and set for server URIs", {"lib/URI/_server.pm": 2}),
        ("w", "how is an internationalized domain name converted with punycode", {"lib/URI/_punycode.pm": 2, "lib/URI/_idna.pm": 2}),
        ("w", "how are mailto URIs parsed into their to and headers", {"lib/URI/mailto.pm": 2, "lib/URI/_query.pm": 1}),
        ("a", "how does URI pick the class implementing a scheme such as http or ftp", {"lib/URI.pm": 2}),
    ]),
    ("ranch", "erlang", "ninenines/ranch", "test", "socket acceptor pool for TCP protocols", [
        ("s", "start_listener", "src/ranch.erl", 91),
        ("s", "handshake", "src/ranch.erl", 299, ["src/ranch_tcp.erl", "src/ranch_ssl.erl"]),
        ("s", "recv_proxy_header", "src/ranch.erl", 366, ["src/ranch_tcp.erl", "src/ranch_ssl.erl"]),
        ("s", "set_max_connections", "src/ranch.erl", 421),
        ("s", "suspend_listener", "src/ranch.erl", 235),
        ("w", "how is the PROXY protocol header parsed", {"src/ranch_proxy_header.erl": 2}),
        ("w", "where does an acceptor loop accept sockets and hand them to the connection supervisor",
         {"src/ranch_acceptor.erl": 2, "src/ranch_conns_sup.erl": 1}),
        ("w", "how does the connections supervisor enforce max_connections", {"src/ranch_conns_sup.erl": 2}),
        ("w", "where are TCP listen socket options set", {"src/ranch_tcp.erl": 2}),
        ("a", "which callbacks must a transport module implement", {"src/ranch_transport.erl": 2}),
    ]),
    ("elm-parser", "elm", "elm/parser", "test", "parser combinators for Elm", [
        ("s", "deadEndsToString", "src/Parser.elm", 169),
        ("s", "chompUntilEndOr", "src/Parser.elm", 873, ["src/Parser/Advanced.elm"]),
        ("s", "multiComment", "src/Parser.elm", 1218, ["src/Parser/Advanced.elm"]),
        ("s", "getChompedString", "src/Parser.elm", 778, ["src/Parser/Advanced.elm"]),
        ("s", "backtrackable", "src/Parser.elm", 399, ["src/Parser/Advanced.elm"]),
        ("w", "how is a variable name parsed with reserved words excluded", {"src/Parser/Advanced.elm": 2, "src/Parser.elm": 1}),
        ("w", "where are the kernel functions that scan the source string for a substring", {"src/Elm/Kernel/Parser.js": 2}),
        ("w", "how does a loop parser repeat until it returns Done", {"src/Parser/Advanced.elm": 2, "src/Parser.elm": 1}),
        ("w", "how are numbers in hex, octal and binary parsed", {"src/Parser/Advanced.elm": 2, "src/Parser.elm": 1}),
        ("a", "what is the difference between oneOf and backtrackable semantics", {"semantics.md": 2, "src/Parser.elm": 1}),
    ]),
    ("s3-bucket", "hcl", "terraform-aws-modules/terraform-aws-s3-bucket", "test", "Terraform module for AWS S3 buckets", [
        ("s", "aws_s3_bucket_versioning.this", "main.tf", 206),
        ("s", "aws_s3_bucket_lifecycle_configuration.this", "main.tf", 297),
        ("s", "aws_iam_policy_document.deny_insecure_transport", "main.tf", 990),
        ("s", "aws_s3_bucket_replication_configuration.this", "main.tf", 437),
        ("s", "aws_s3_bucket_public_access_block.this", "main.tf", 1164),
        ("w", "where is the bucket policy built from all the optional policy statements", {"main.tf": 2}),
        ("w", "how are S3 bucket notifications sent to SQS, SNS or Lambda", {"modules/notification/main.tf": 2}),
        ("w", "where is an object uploaded into the bucket", {"modules/object/main.tf": 2}),
        ("w", "which inputs turn on server-side encryption with KMS", {"variables.tf": 2, "main.tf": 1}),
        ("a", "how do the wrappers let one module call create many buckets", {"wrappers/main.tf": 2}),
    ]),
    # Round 2 (issue 22): queries written from the README and the API names it documents, labels
    # from reading the code, before the tool ran on the project.
    ("hiccup", "clojure", "weavejester/hiccup", "dev", "HTML from Clojure vectors", [
        ("s", "html5", "src/hiccup/page.clj", 61),
        ("s", "include-css", "src/hiccup/page.clj", 83),
        ("s", "form-to", "src/hiccup/form.clj", 123),
        ("s", "wrap-base-url", "src/hiccup/middleware.clj", 5),
        ("s", "defelem", "src/hiccup/def.clj", 33),
        ("w", "how are the id and class shortcuts in a tag like div#foo.bar parsed", {"src/hiccup/compiler.clj": 2}),
        ("w", "where are strings escaped automatically when rendering HTML in Hiccup 2",
         {"src/hiccup2/core.clj": 2, "src/hiccup/compiler.clj": 2, "src/hiccup/util.clj": 1}),
        ("w", "how are text fields, check boxes and drop-down selects generated for a form", {"src/hiccup/form.clj": 2}),
        ("w", "where are URLs with query parameters built and encoded", {"src/hiccup/util.clj": 2}),
        ("a", "which namespace compiles Hiccup vectors into HTML strings at macro-expansion time",
         {"src/hiccup/compiler.clj": 2, "src/hiccup2/core.clj": 1}),
        # round 3: the macro `html` of hiccup2.core beside hiccup.core's
        ("s", "hiccup2.core/html", "src/hiccup2/core.clj", 8, ["src/hiccup/core.clj"]),
    ]),
    ("flake-utils", "nix", "numtide/flake-utils", "test", "pure Nix flake utility functions", [
        ("s", "eachSystem", "lib.nix", 31),
        ("s", "eachDefaultSystem", "lib.nix", 27),
        ("s", "eachSystemMap", "lib.nix", 61),
        ("s", "mkApp", "lib.nix", 179),
        ("s", "meld", "lib.nix", 146),
        ("w", "how are the outputs for each system merged into one attribute set per attribute", {"lib.nix": 2}),
        ("w", "where are nested package trees flattened into slash-separated names", {"flattenTree.nix": 2, "lib.nix": 1}),
        ("w", "how are broken or unsupported packages filtered out before nix flake check",
         {"filterPackages.nix": 2, "lib.nix": 1}),
        ("w", "which systems are known to nixpkgs", {"allSystems.nix": 2, "lib.nix": 1}),
        ("a", "how does simpleFlake build packages, overlays and a dev shell from one nixpkgs import", {"simpleFlake.nix": 2}),
    ]),
    ("v3-subgraph", "graphql", "Uniswap/v3-subgraph", "test", "Uniswap v3 subgraph: a GraphQL schema and its TypeScript mappings", [
        ("s", "Swap", "src/v3/schema.graphql", 253),
        ("s", "Tick", "src/v3/schema.graphql", 144),
        ("s", "PoolDayData", "src/v3/schema.graphql", 359),
        ("s", "UniswapDayData", "src/v3/schema.graphql", 339),
        ("s", "Flash", "src/v3/schema.graphql", 311),
        ("w", "how is the USD price of a token derived from the ETH price", {"src/common/pricing.ts": 2}),
        ("w", "where are the daily and hourly pool statistics updated",
         {"src/v3/mappings/intervalUpdates.ts": 2, "src/v3-tokens/mappings/intervalUpdates.ts": 1}),
        ("w", "where is a new pool created when the factory emits PoolCreated",
         {"src/v3/mappings/factory.ts": 2, "src/v3-tokens/mappings/factory.ts": 1}),
        ("w", "which fields does a swap event store", {"src/v3/schema.graphql": 2, "src/v3-tokens/schema.graphql": 1}),
        ("a", "how are swaps handled: pool, token and volume updates",
         {"src/v3/mappings/swap.ts": 2, "src/v3-tokens/mappings/swap.ts": 1}),
    ]),
    ("pagila", "sql", "devrimgunduz/pagila", "dev", "PostgreSQL sample database: a DVD rental store", [
        ("s", "film_in_stock", "pagila-schema.sql", 83),
        ("s", "rental", "pagila-schema.sql", 1734),
        ("s", "customer_list", "pagila-schema.sql", 626),
        ("s", "mpaa_rating", "pagila-schema.sql", 41),
        ("s", "get_customer_balance", "pagila-schema.sql", 117),
        ("w", "how are payments partitioned by month with pg_partman", {"pg_partman-setup.sql": 2}),
        ("w", "where is monthly rental and payment data generated for new months",
         {"scripts/add_monthly_data.sql": 2, "scripts/add_monthly_data.sh": 1}),
        ("w", "how are temporal tables with periods set up for rentals", {"pagila-temporal-setup.sql": 2}),
        ("w", "where is the property graph for SQL/PGQ queries defined", {"pagila-sql-pgq-setup.sql": 2}),
        ("a", "which tables hold films, actors and their categories", {"pagila-schema.sql": 2}),
    ]),
    ("cmake-scripts", "cmake", "StableCoder/cmake-scripts", "test", "CMake modules for sanitizers, coverage, tools", [
        ("s", "target_code_coverage", "code-coverage.cmake", 260),
        ("s", "add_sanitizer_support", "sanitizers.cmake", 247),
        ("s", "gen_dep_graph", "dependency-graph.cmake", 58),
        ("s", "build_docs", "doxygen.cmake", 54),
        ("s", "target_glsl_shaders", "glsl-shaders.cmake", 55),
        ("w", "how are source files formatted with clang-format and cmake-format", {"formatting.cmake": 2}),
        ("w", "where is link time optimization turned on for a target", {"link-time-optimization.cmake": 2}),
        ("w", "how are the C++ standard and its extensions required", {"c++-standards.cmake": 2, "c-standards.cmake": 1}),
        ("w", "where are clang-tidy, include-what-you-use and cppcheck hooked into the build", {"tools.cmake": 2}),
        ("a", "how do the coverage targets collect reports with llvm-cov or lcov and merge them into ccov-all",
         {"code-coverage.cmake": 2}),
    ]),
    ("api-common-protos", "proto", "googleapis/api-common-protos", "test", "common protocol buffer types of Google APIs", [
        ("s", "HttpRule", "google/api/http.proto", 262),
        ("s", "Operations.GetOperation", "google/longrunning/operations.proto", 77),
        ("s", "ErrorInfo", "google/rpc/error_details.proto", 110),
        ("s", "Money", "google/type/money.proto", 28),
        ("s", "FieldBehavior", "google/api/field_behavior.proto", 49),
        ("w", "how is an RPC mapped to a REST path with variables in the URL", {"google/api/http.proto": 2}),
        ("w", "where are the canonical error codes like NOT_FOUND and UNAVAILABLE defined", {"google/rpc/code.proto": 2}),
        ("w", "how does a server tell the client how long to wait before retrying", {"google/rpc/error_details.proto": 2}),
        ("w", "where is an IAM policy with role bindings and conditions defined", {"google/iam/v1/policy.proto": 2, "google/type/expr.proto": 1}),
        ("a", "how are long-running operations polled, cancelled and waited on", {"google/longrunning/operations.proto": 2}),
    ]),
    # Round 3 (issue 22): dev projects of three module-header languages whose names are defined in
    # several modules (a base class and its subclasses' overrides, a package's root module and its
    # protocol modules, a module and its submodule); cases written from the code before the tool ran.
    ("http-message", "perl", "libwww-perl/HTTP-Message", "dev", "HTTP style message objects for Perl", [
        ("s", "dump", "lib/HTTP/Message.pm", 611, ["lib/HTTP/Request.pm", "lib/HTTP/Response.pm"]),
        ("s", "clone", "lib/HTTP/Message.pm", 86, ["lib/HTTP/Request.pm", "lib/HTTP/Response.pm"]),
        ("s", "HTTP::Response::as_string", "lib/HTTP/Response.pm", 187, ["lib/HTTP/Message.pm"]),
        ("s", "HTTP::Request::parse", "lib/HTTP/Request.pm", 20, ["lib/HTTP/Message.pm"]),
        ("s", "is_success", "lib/HTTP/Status.pm", 151, ["lib/HTTP/Response.pm"]),
        ("s", "decoded_content", "lib/HTTP/Message.pm", 294),
        ("w", "how is a message body decoded from gzip or deflate content encoding", {"lib/HTTP/Message.pm": 2}),
        ("w", "where are multipart form-data POST requests with file uploads built", {"lib/HTTP/Request/Common.pm": 2}),
        ("w", "how are header field names canonicalised and their values stored", {"lib/HTTP/Headers.pm": 2}),
        ("a", "which classes inherit the shared message methods for requests and responses",
         {"lib/HTTP/Message.pm": 2, "lib/HTTP/Request.pm": 2, "lib/HTTP/Response.pm": 2}),
    ]),
    ("gun", "erlang", "ninenines/gun", "dev", "HTTP/1.1, HTTP/2, HTTP/3 and Websocket client for Erlang", [
        ("s", "ws_send", "src/gun.erl", 1042, ["src/gun_ws.erl", "src/gun_http.erl", "src/gun_http2.erl"]),
        ("s", "update_flow", "src/gun.erl", 1000, ["src/gun_http.erl", "src/gun_http2.erl"]),
        ("s", "gun_http2:cancel", "src/gun_http2.erl", 1450, ["src/gun.erl"]),
        ("s", "gun_pool:request", "src/gun_pool.erl", 355, ["src/gun.erl"]),
        ("s", "gun_http:headers", "src/gun_http.erl", 609, ["src/gun.erl"]),
        ("s", "await_body", "src/gun.erl", 858),
        ("w", "how are cookies stored and matched against the request's domain and path",
         {"src/gun_cookies.erl": 2, "src/gun_cookies_list.erl": 2}),
        ("w", "where is the SOCKS5 proxy handshake and authentication done", {"src/gun_socks.erl": 2}),
        ("w", "how are server-sent event streams parsed into events", {"src/gun_sse_h.erl": 2}),
        ("a", "which modules implement the HTTP/1.1, HTTP/2 and HTTP/3 protocols of a connection",
         {"src/gun_http.erl": 2, "src/gun_http2.erl": 2, "src/gun_http3.erl": 2}),
    ]),
    ("elm-url", "elm", "elm/url", "dev", "create and parse URLs in Elm", [
        ("s", "map", "src/Url/Parser.elm", 207, ["src/Url/Parser/Query.elm"]),
        ("s", "Url.Parser.Query.string", "src/Url/Parser/Query.elm", 63, ["src/Url/Parser.elm", "src/Url/Builder.elm"]),
        ("s", "Url.Builder.int", "src/Url/Builder.elm", 193, ["src/Url/Parser.elm", "src/Url/Parser/Query.elm"]),
        ("s", "Url.Parser.custom", "src/Url/Parser.elm", 145, ["src/Url/Parser/Query.elm", "src/Url/Builder.elm"]),
        ("s", "percentDecode", "src/Url.elm", 289),
        ("s", "toString", "src/Url.elm", 186),
        ("w", "how is a URL string split into protocol, host, port, path, query and fragment", {"src/Url.elm": 2}),
        ("w", "where are query parameters percent-encoded when a URL is built", {"src/Url/Builder.elm": 2, "src/Url.elm": 1}),
        ("w", "how does the parser try each route of oneOf until one matches", {"src/Url/Parser.elm": 2}),
        ("a", "which modules build URLs and which parse them",
         {"src/Url/Builder.elm": 2, "src/Url/Parser.elm": 2, "src/Url/Parser/Query.elm": 1}),
    ]),
    # Round 3 (issue 22): Dockerfiles and single-file components (Vue, Svelte); queries written from
    # the README and the code before the tool ran on the project.
    ("docker-stacks", "dockerfile", "jupyter/docker-stacks", "dev", "ready-to-run Docker images with Jupyter", [
        ("s", "CONDA_DIR", "images/docker-stacks-foundation/Dockerfile", 56),
        ("s", "SPARK_HOME", "images/pyspark-notebook/Dockerfile", 41),
        ("s", "micromamba", "images/docker-stacks-foundation/Dockerfile", 15),
        ("s", "PYTHON_VERSION", "images/docker-stacks-foundation/Dockerfile", 105),
        ("s", "JUPYTER_PORT", "images/base-notebook/Dockerfile", 59),
        ("w", "where is the notebook user jovyan created with its uid and gid",
         {"images/docker-stacks-foundation/Dockerfile": 2, "images/docker-stacks-foundation/start.sh": 1}),
        ("w", "how is Spark downloaded and installed into the pyspark image",
         {"images/pyspark-notebook/setup_spark.py": 2, "images/pyspark-notebook/Dockerfile": 2}),
        ("w", "where are Python, conda and mamba installed with micromamba", {"images/docker-stacks-foundation/Dockerfile": 2}),
        ("w", "how does the start script switch to the notebook user and run the start-up hooks",
         {"images/docker-stacks-foundation/start.sh": 2, "images/docker-stacks-foundation/run-hooks.sh": 1}),
        ("a", "which images build on which, from the foundation image to the scipy notebook",
         {"images/docker-stacks-foundation/Dockerfile": 2, "images/base-notebook/Dockerfile": 2,
          "images/minimal-notebook/Dockerfile": 2, "images/scipy-notebook/Dockerfile": 2}),
    ]),
    ("vitepress", "vue", "vuejs/vitepress", "test", "Vue-powered static site generator", [
        ("s", "fetchExcerpt", "src/client/theme-default/components/VPLocalSearchBox.vue", 254),
        ("s", "selectNextResult", "src/client/theme-default/components/VPLocalSearchBox.vue", 313),
        ("s", "closeOnClickOutside", "src/client/theme-default/components/VPLocalNavOutlineDropdown.vue", 25),
        ("s", "loadDocsearch", "src/client/theme-default/components/VPAlgoliaSearchBox.vue", 223),
        ("s", "isRegistered", "src/client/theme-default/components/VPContent.vue", 13),
        ("w", "where are local search results highlighted with marks for the query terms",
         {"src/client/theme-default/components/VPLocalSearchBox.vue": 2}),
        ("w", "how does the navigation flyout menu close when the focus leaves it",
         {"src/client/theme-default/components/VPFlyout.vue": 2, "src/client/theme-default/composables/flyout.ts": 2}),
        ("w", "where is the page's last updated date formatted for the doc footer",
         {"src/client/theme-default/components/VPDocFooterLastUpdated.vue": 2}),
        ("w", "how is the Carbon ads script loaded into the page",
         {"src/client/theme-default/components/VPCarbonAds.vue": 2, "src/client/theme-default/components/VPDocAsideCarbonAds.vue": 1}),
        ("a", "which components lay out the home page hero, features and content",
         {"src/client/theme-default/components/VPHome.vue": 2, "src/client/theme-default/components/VPHomeHero.vue": 1,
          "src/client/theme-default/components/VPHomeFeatures.vue": 1, "src/client/theme-default/components/VPHomeContent.vue": 1}),
    ]),
    ("svelte-realworld", "svelte", "sveltejs/realworld", "test", "SvelteKit implementation of the RealWorld app", [
        ("s", "page_link_base", "src/routes/+page.svelte", 11),
        ("s", "is_favorites", "src/routes/profile/@[user]/+layout.svelte", 7),
        ("s", "tagList", "src/routes/editor/Editor.svelte", 9),
        ("s", "range", "src/routes/Pagination.svelte", 4),
        ("w", "where is an article favorited from the article list without reloading the page",
         {"src/lib/ArticleList/ArticlePreview.svelte": 2, "src/routes/article/[slug]/+page.server.js": 1}),
        ("w", "how are comments posted and deleted on an article page",
         {"src/routes/article/[slug]/CommentInput.svelte": 2, "src/routes/article/[slug]/Comment.svelte": 2,
          "src/routes/article/[slug]/+page.server.js": 1}),
        ("w", "where is the progress bar shown while the next page is loading",
         {"src/routes/PreloadingIndicator.svelte": 2, "src/routes/+layout.svelte": 1}),
        ("w", "how does the editor add and remove an article's tags", {"src/routes/editor/Editor.svelte": 2}),
        ("w", "where are requests to the API sent with the user's token", {"src/lib/api.js": 2}),
        ("a", "which components render the navigation bar and the list of articles on the home page",
         {"src/routes/Nav.svelte": 2, "src/routes/+page.svelte": 2, "src/lib/ArticleList/index.svelte": 1,
          "src/lib/ArticleList/ArticlePreview.svelte": 1}),
    ]),
]


def main() -> None:
    out = HERE / "projects"
    out.mkdir(exist_ok=True)
    for name, language, repo, split, description, raw in PROJECTS:
        commit = subprocess.run(["git", "--git-dir", str(MIRROR / repo.replace("/", "+") / "repo"), "rev-parse", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        cases = []
        for i, case in enumerate(raw, start=1):
            item = {"id": f"{name}-{i:02d}", "kind": {"s": "symbol", "w": "where", "a": "architecture"}[case[0]], "query": case[1]}
            if case[0] == "s":
                extra = case[4] if len(case) > 4 else []
                item["expected"] = [{"path": case[2], "grade": 2}] + [{"path": p, "grade": 1} for p in extra]
                # end_line is not used by the scorer (def@1 checks the chunk holding start_line)
                item["definition"] = {"path": case[2], "start_line": case[3], "end_line": case[3]}
            else:
                item["expected"] = [{"path": p, "grade": g} for p, g in case[2].items()]
            cases.append(item)
        data = {"name": name, "language": language, "repo": repo, "commit": commit, "split": split,
                "description": description, "cases": cases}
        (out / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(name, len(cases))


if __name__ == "__main__":
    main()
