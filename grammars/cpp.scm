; Tag query for C++ and for C through the C++ grammar. Function names sit inside declarators
; (pointers, references, qualified names), so the whole declarator is captured as @declarator
; and the extractor digs out the name; out-of-line `void Foo::bar()` becomes `Foo.bar`.

(namespace_definition name: (_) @name) @definition.namespace
(class_specifier name: (_) @name body: (_)) @definition.class
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.struct
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
(alias_declaration name: (_) @name) @definition.type

(function_definition declarator: (_) @declarator) @definition.function
(field_declaration declarator: (_) @declarator) @definition.method
(declaration declarator: (_) @declarator) @definition.function

(preproc_include path: (_) @import)
