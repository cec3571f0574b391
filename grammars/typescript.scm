; Tag query for TypeScript and TSX.
; Captures: @definition.<kind> marks the declaration node, @name its name, @import a module
; specifier. When two patterns match the same node the earlier pattern wins, so the specific
; patterns (accessors, constructors) come before the general ones.

(class_declaration name: (_) @name) @definition.class
(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module

(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function
(function_signature name: (_) @name) @definition.function

(class_body (method_definition "get" name: (_) @name) @definition.accessor)
(class_body (method_definition "set" name: (_) @name) @definition.accessor)
(class_body (method_definition name: (_) @name) @definition.method)
(class_body (method_signature name: (_) @name) @definition.method)
(class_body (abstract_method_signature name: (_) @name) @definition.method)
(class_body (public_field_definition name: (_) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.method)
(class_body (public_field_definition name: (_) @name value: (class)) @definition.class)
(interface_body (method_signature name: (_) @name) @definition.method)

; Constants and variables bound to functions or classes are declarations in all but syntax.
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (class))) @definition.class

(import_statement source: (string (string_fragment) @import))
(export_statement source: (string (string_fragment) @import))
(call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import)) (#eq? @_require "require"))
(import_require_clause source: (string (string_fragment) @import))
