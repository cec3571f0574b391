/**
 * Natural-language questions on a fourth real code base in a fourth language: just (Rust command
 * runner) at the commit the localization set pins for it (`justCommit` in `honoCorpus.ts`). A
 * check set for question ranking: the questions were written from reading the code's behaviour,
 * before any ranking change was measured on them, in the words a developer would use without
 * knowing the declarations' names; every expected range is the declaration that answers, read in
 * that commit's `src/`. All of them run in the tune split.
 */
import type { QualityQuery } from './queries';

const root = 'src';

export const justQueries: QualityQuery[] = [
  {
    id: 'jq-find-file-upward',
    kind: 'natural',
    query:
      'how does it find the file of recipes by walking up the parent directories, and what happens when two names match in one directory?',
    expected: [{ path: `${root}/search.rs`, start: 246, end: 290 }],
    note: 'Search::justfile',
  },
  {
    id: 'jq-project-root',
    kind: 'natural',
    query: 'how is the root of the project found from a version control folder like .git?',
    expected: [{ path: `${root}/search.rs`, start: 296, end: 326 }],
    note: 'Search::project_root',
  },
  {
    id: 'jq-strip-indentation',
    kind: 'natural',
    query: 'how is the common leading whitespace removed from every line of an indented multi-line string?',
    expected: [{ path: `${root}/unindent.rs`, start: 2, end: 36 }],
    note: 'unindent',
  },
  {
    id: 'jq-split-interpreter-line',
    kind: 'natural',
    query: 'how is the #! first line split into the interpreter program and its argument?',
    expected: [{ path: `${root}/shebang.rs`, start: 10, end: 30 }],
    note: 'Shebang::new',
  },
  {
    id: 'jq-omit-interpreter-line',
    kind: 'natural',
    query: 'why is the #! line left out of the generated script on Windows or when the interpreter is cmd?',
    expected: [{ path: `${root}/shebang.rs`, start: 36, end: 38 }],
    note: 'Shebang::include_shebang_line',
  },
  {
    id: 'jq-byte-order-mark',
    kind: 'natural',
    query: 'which shells need a byte order mark written at the start of the script file?',
    expected: [{ path: `${root}/executor.rs`, start: 64, end: 69 }],
    note: 'Executor::needs_bom',
  },
  {
    id: 'jq-script-line-numbers',
    kind: 'natural',
    query: 'how are blank lines padded into the generated script so that error line numbers match the source file?',
    expected: [{ path: `${root}/executor.rs`, start: 103, end: 136 }],
    note: 'Executor::script',
  },
  {
    id: 'jq-did-you-mean',
    kind: 'natural',
    query: 'when a recipe name is mistyped, how does it choose the closest name to suggest?',
    expected: [
      { path: `${root}/justfile.rs`, start: 55, end: 64 },
      { path: `${root}/justfile.rs`, start: 66, end: 88 },
    ],
    note: 'Justfile::find_suggestion (levenshtein distance < 3), or suggest_recipe',
  },
  {
    id: 'jq-dependency-cycle',
    kind: 'natural',
    query: 'how is a recipe that ends up depending on itself through a chain of dependencies detected?',
    expected: [{ path: `${root}/recipe_resolver.rs`, start: 97, end: 140 }],
    note: 'RecipeResolver::resolve_dependency: CircularRecipeDependency when the stack holds the name',
  },
  {
    id: 'jq-signal-children',
    kind: 'natural',
    query: 'what happens to the running child processes when it gets a terminate signal or ctrl-c?',
    expected: [{ path: `${root}/signal_handler.rs`, start: 50, end: 112 }],
    note: 'SignalHandler::handle',
  },
  {
    id: 'jq-confirm-prompt',
    kind: 'natural',
    query: 'how does a recipe ask the user before running, and which answers count as yes?',
    expected: [{ path: `${root}/recipe.rs`, start: 101, end: 117 }],
    note: 'Recipe::confirm',
  },
  {
    id: 'jq-change-directory',
    kind: 'natural',
    query: "when does a recipe run in the justfile's own directory rather than where the command was invoked?",
    expected: [{ path: `${root}/recipe.rs`, start: 155, end: 165 }],
    note: 'Recipe::change_directory',
  },
  {
    id: 'jq-keep-going-on-signal',
    kind: 'natural',
    query: 'which signals let a recipe carry on instead of being stopped?',
    expected: [{ path: `${root}/recipe.rs`, start: 131, end: 141 }],
    note: 'Recipe::continue_on',
  },
  {
    id: 'jq-global-file',
    kind: 'natural',
    query: 'where does it look for the user-wide global recipe file in the home or config directory?',
    expected: [
      { path: `${root}/search.rs`, start: 153, end: 171 },
      { path: `${root}/search.rs`, start: 19, end: 38 },
    ],
    note: 'Search::find_global_justfile, or global_justfile_paths',
  },
  {
    id: 'jq-line-continuation',
    kind: 'natural',
    query: 'what does a backslash at the end of a line do, and which escape sequences are rejected?',
    expected: [{ path: `${root}/lexer.rs`, start: 743, end: 767 }],
    note: 'Lexer::lex_escape',
  },
  {
    id: 'jq-env-lookup',
    kind: 'natural',
    query: 'how is an environment variable read with values from the .env file taking priority and a fallback default?',
    expected: [{ path: `${root}/function.rs`, start: 318, end: 349 }],
    note: 'function::env',
  },
  {
    id: 'jq-random-string',
    kind: 'natural',
    query: 'how is a random string of a given length made from a set of allowed characters?',
    expected: [{ path: `${root}/function.rs`, start: 252, end: 274 }],
    note: 'function::choose',
  },
  {
    id: 'jq-shell-quote',
    kind: 'natural',
    query: 'how is a value wrapped in single quotes so the shell treats it as one literal word?',
    expected: [{ path: `${root}/function.rs`, start: 592, end: 594 }],
    note: 'function::quote',
  },
  {
    id: 'jq-dotenv-load',
    kind: 'natural',
    query: 'how are dotenv files loaded before recipes run, and when is a command run instead to produce the variables?',
    expected: [{ path: `${root}/load_dotenv.rs`, start: 3, end: 97 }],
    note: 'load_dotenv',
  },
  {
    id: 'jq-cache-hit',
    kind: 'natural',
    query: 'how does it decide a cached recipe can be skipped because its hash is recorded and its outputs still exist?',
    expected: [{ path: `${root}/cache.rs`, start: 11, end: 71 }],
    note: 'Cache::status',
  },
  {
    id: 'jq-find-executable',
    kind: 'natural',
    query: 'how does it find an executable program on the PATH, trying the Windows file extensions too?',
    expected: [{ path: `${root}/which.rs`, start: 3, end: 67 }],
    note: 'which',
  },
];
