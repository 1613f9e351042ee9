"""Tree-sitter grammar tables: which node types are definitions, wrappers, containers and bodies.

Checked by parsing samples with the installed grammar wheels (versions pinned in pyproject.toml).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

# Language -> (grammar module, function returning the language pointer).
GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "swift": ("tree_sitter_swift", "language"),
    "scala": ("tree_sitter_scala", "language"),
    "bash": ("tree_sitter_bash", "language"),
    "lua": ("tree_sitter_lua", "language"),
}


@dataclass(frozen=True)
class Grammar:
    """Node types of one grammar, checked by parsing samples with the installed wheels.

    functions/classes/impls: definitions; wrappers: nodes around a definition that belong to
    its chunk (export, decorators, templates); transparent: containers whose members are
    chunked as if at the enclosing level (namespaces, #ifdef); bodies: member lists that are
    flattened when a class or a transparent container is opened.
    """

    functions: frozenset[str] = frozenset()
    classes: frozenset[str] = frozenset()
    impls: frozenset[str] = frozenset()
    wrappers: frozenset[str] = frozenset()
    transparent: frozenset[str] = frozenset()
    bodies: frozenset[str] = frozenset()


def _g(**kinds: Sequence[str]) -> Grammar:
    return Grammar(**{key: frozenset(value) for key, value in kinds.items()})


_JS = dict(
    functions=["function_declaration", "generator_function_declaration", "method_definition"],
    classes=["class_declaration", "class"],
    wrappers=["export_statement"],
    bodies=["class_body"],
)
_TS = dict(
    functions=_JS["functions"] + ["function_signature", "method_signature", "abstract_method_signature"],
    classes=_JS["classes"]
    + ["abstract_class_declaration", "interface_declaration", "enum_declaration", "internal_module", "module"],
    wrappers=["export_statement", "ambient_declaration", "expression_statement"],
    bodies=["class_body", "interface_body", "enum_body", "object_type", "statement_block"],
)
_C_PREPROC = ["preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "preproc_elifdef"]

GRAMMAR_TYPES: dict[str, Grammar] = {
    "python": _g(
        functions=["function_definition"],
        classes=["class_definition"],
        wrappers=["decorated_definition"],
        bodies=["block"],
    ),
    "javascript": _g(**_JS),
    "typescript": _g(**_TS),
    "tsx": _g(**_TS),
    "go": _g(
        functions=["function_declaration", "method_declaration", "method_elem"],
        bodies=["field_declaration_list"],
    ),
    "rust": _g(
        functions=["function_item", "function_signature_item", "macro_definition"],
        classes=["struct_item", "enum_item", "trait_item", "union_item", "mod_item"],
        impls=["impl_item"],
        transparent=["foreign_mod_item"],
        bodies=["declaration_list", "field_declaration_list", "enum_variant_list"],
    ),
    "java": _g(
        functions=["method_declaration", "constructor_declaration", "compact_constructor_declaration"],
        classes=[
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "annotation_type_declaration",
        ],
        bodies=["class_body", "interface_body", "enum_body", "enum_body_declarations", "annotation_type_body"],
    ),
    "kotlin": _g(
        functions=["function_declaration", "secondary_constructor"],
        classes=["class_declaration", "object_declaration", "companion_object"],
        bodies=["class_body", "enum_class_body"],
    ),
    "c": _g(
        functions=["function_definition"],
        classes=["struct_specifier", "union_specifier", "enum_specifier"],
        transparent=_C_PREPROC + ["linkage_specification"],
        bodies=["field_declaration_list", "enumerator_list", "declaration_list"],
    ),
    "cpp": _g(
        functions=["function_definition"],
        classes=["class_specifier", "struct_specifier", "union_specifier", "enum_specifier"],
        wrappers=["template_declaration"],
        transparent=_C_PREPROC + ["linkage_specification", "namespace_definition"],
        bodies=["field_declaration_list", "enumerator_list", "declaration_list"],
    ),
    "csharp": _g(
        functions=[
            "method_declaration",
            "constructor_declaration",
            "destructor_declaration",
            "operator_declaration",
            "conversion_operator_declaration",
            "indexer_declaration",
            "property_declaration",
        ],
        classes=[
            "class_declaration",
            "struct_declaration",
            "interface_declaration",
            "record_declaration",
            "enum_declaration",
        ],
        transparent=["namespace_declaration"],
        bodies=["declaration_list", "enum_member_declaration_list"],
    ),
    "ruby": _g(
        functions=["method", "singleton_method"],
        classes=["class", "module"],
        transparent=["singleton_class"],
        bodies=["body_statement"],
    ),
    "php": _g(
        functions=["function_definition", "method_declaration"],
        classes=["class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"],
        transparent=["namespace_definition"],
        bodies=["declaration_list", "enum_declaration_list", "compound_statement"],
    ),
    "swift": _g(
        functions=[
            "function_declaration",
            "init_declaration",
            "deinit_declaration",
            "subscript_declaration",
            "protocol_function_declaration",
        ],
        classes=["class_declaration", "protocol_declaration"],
        bodies=["class_body", "protocol_body", "enum_class_body"],
    ),
    "scala": _g(
        functions=["function_definition", "function_declaration"],
        classes=["class_definition", "object_definition", "trait_definition", "enum_definition"],
        bodies=["template_body", "enum_body"],
    ),
    "bash": _g(functions=["function_definition"]),
    "lua": _g(functions=["function_declaration"]),
}

# Captures of a data file's query (chunking/queries/*.scm; the names aider's tags.scm files use).
FUNCTION_CAPTURES = frozenset({"definition.function", "definition.method", "definition.macro"})
CONTAINER_CAPTURES = frozenset(
    {"definition.class", "definition.module", "definition.interface", "definition.type", "definition.impl"}
)

# Names for definitions that have no name node of their own.
FIXED_NAMES = {
    "init_declaration": "init",
    "deinit_declaration": "deinit",
    "subscript_declaration": "subscript",
    "secondary_constructor": "constructor",
    "companion_object": "Companion",
    "indexer_declaration": "this",
    "class": "default",  # `export default class { ... }`
}
NAME_NODE_TYPES = frozenset(
    {"identifier", "type_identifier", "simple_identifier", "constant", "name", "property_identifier", "field_identifier"}
)
# Sibling nodes directly above a definition that belong to its chunk (besides comments).
ATTACHED = frozenset({"decorator", "attribute_item", "attribute", "annotation", "marker_annotation"})
FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "generator_function_expression"}
)
WHITESPACE = frozenset(b" \t\r\n\x0b\x0c")
C_NAME_TYPES = frozenset(
    {
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "type_identifier",
        "template_function",
        "operator_cast",
    }
)

