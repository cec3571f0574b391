; Tag query for JavaScript (and JSX). Same capture conventions as typescript.scm.

(class_declaration name: (_) @name) @definition.class
(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function

(class_body (method_definition "get" name: (_) @name) @definition.accessor)
(class_body (method_definition "set" name: (_) @name) @definition.accessor)
(class_body (method_definition name: (_) @name) @definition.method)
(class_body (field_definition property: (_) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.method)
(class_body (field_definition property: (_) @name value: (class)) @definition.class)

(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(lexical_declaration (variable_declarator name: (identifier) @name value: (class))) @definition.class

; CommonJS and prototype assignments at the top of a module: `exports.f = function`, `Foo.prototype.m = () =>`.
(program (expression_statement (assignment_expression left: (member_expression object: (_) @scope property: (property_identifier) @name) right: [(arrow_function) (function_expression) (generator_function)])) @definition.function)

(import_statement source: (string (string_fragment) @import))
(export_statement source: (string (string_fragment) @import))
(call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import)) (#eq? @_require "require"))
