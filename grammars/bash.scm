; Tag query for Bash: `name() {}` and `function name {}`.

(function_definition name: (word) @name) @definition.function

(command name: (command_name (word) @_source) argument: (_) @import (#any-of? @_source "source" "."))
