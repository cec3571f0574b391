; Tag query for Go. Methods carry their receiver type in @receiver; the extractor strips
; pointers, packages and type parameters from it.

(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list (parameter_declaration type: (_) @receiver)) name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(interface_type (method_elem name: (field_identifier) @name) @definition.method)
(var_spec name: (identifier) @name value: (expression_list . (func_literal) .)) @definition.function

(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @import))
