; Tag query for PHP. A `namespace X;` statement has no body; the extractor lets it enclose
; everything up to the next namespace statement.

(namespace_definition name: (namespace_name) @name) @definition.namespace
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method

(namespace_use_clause [(qualified_name) (name)] @import)
(require_expression (string (string_content) @import))
(require_once_expression (string (string_content) @import))
(include_expression (string (string_content) @import))
(include_once_expression (string (string_content) @import))
