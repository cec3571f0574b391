; Tag query for Rust. An impl block is named after its self type (`impl Trait for Type` too),
; so the functions inside it come out as `Type.method`.

(struct_item name: (_) @name) @definition.struct
(union_item name: (_) @name) @definition.struct
(enum_item name: (_) @name) @definition.enum
(trait_item name: (_) @name) @definition.trait
(impl_item type: (_) @name) @definition.impl
(type_item name: (_) @name) @definition.type
(associated_type name: (_) @name) @definition.type
(mod_item name: (_) @name) @definition.module
(function_item name: (_) @name) @definition.function
(function_signature_item name: (_) @name) @definition.function

(use_declaration argument: (_) @import)
(extern_crate_declaration name: (_) @import)
