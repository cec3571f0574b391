; Tag query for Python. Functions inside classes become methods in the extractor.

(decorated_definition (decorator (identifier) @_decorator) definition: (function_definition name: (identifier) @name) @definition.accessor (#eq? @_decorator "property"))
(decorated_definition (decorator (attribute attribute: (identifier) @_decorator)) definition: (function_definition name: (identifier) @name) @definition.accessor (#any-of? @_decorator "setter" "getter" "deleter"))
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))
(import_from_statement module_name: (_) @import)
(future_import_statement) @import
