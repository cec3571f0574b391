; Tag query for Ruby. `def self.x` is a singleton method of the enclosing class or module.

(module name: (_) @name) @definition.module
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method

(call method: (identifier) @_require arguments: (argument_list . (string (string_content) @import)) (#any-of? @_require "require" "require_relative" "load"))
