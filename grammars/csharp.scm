; Tag query for C#. A file-scoped `namespace X;` has no body; the extractor lets it enclose
; everything after it.

(namespace_declaration name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
(class_declaration name: (identifier) @name) @definition.class
(record_declaration "struct" name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(constructor_declaration name: (identifier) @name) @definition.constructor
(destructor_declaration name: (identifier) @name) @definition.method
(method_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.property
(local_function_statement name: (identifier) @name) @definition.function

(using_directive [(qualified_name) (identifier)] @import)
