/**
 * Natural-language questions on a third real code base in a third language: jsoup (Java HTML
 * parser) at the commit the localization set pins for it (`jsoupCommit` in `honoCorpus.ts`). The questions
 * were written from reading the code's behaviour, before any search was run on them, in the words a
 * developer would use without knowing the declarations' names; every expected range was read in that
 * commit's source (`src/main/java/org/jsoup/...`). Every third query (the third, sixth, ...) is held
 * out: it runs only with `--split held-out` or `--split all`.
 */
import type { QualityQuery } from './queries';

type Draft = Omit<QualityQuery, 'split'>;

const root = 'src/main/java/org/jsoup';

const drafts: Draft[] = [
  {
    id: 'jn-redirect-method',
    kind: 'natural',
    query: 'after a POST gets a 302 or 303 answer, which HTTP method does the follow-up request use?',
    expected: [{ path: `${root}/helper/HttpConnection.java`, start: 889, end: 902 }],
    note: 'HttpConnection.Response.redirectMethod',
  },
  {
    id: 'jn-cross-origin-headers',
    kind: 'natural',
    query: 'are the authorization and cookie headers dropped when a redirect goes to another host?',
    expected: [
      { path: `${root}/helper/HttpConnection.java`, start: 953, end: 965 },
      { path: `${root}/helper/HttpConnection.java`, start: 908, end: 914 },
    ],
    note: 'Response.execute: headers removed unless sameOrigin; or sameOrigin itself',
  },
  {
    id: 'jn-compressed-body',
    kind: 'natural',
    query: 'how is a compressed response body decoded when the server sends gzip or deflate?',
    expected: [{ path: `${root}/helper/HttpConnection.java`, start: 989, end: 1002 }],
    note: 'Response.execute wraps the body stream in GZIPInputStream / InflaterInputStream',
  },
  {
    id: 'jn-byte-order-mark',
    kind: 'natural',
    query: 'how does it tell UTF-16 or UTF-32 input apart from UTF-8 by looking at the first bytes of the stream?',
    expected: [{ path: `${root}/helper/DataUtil.java`, start: 406, end: 428 }],
    note: 'DataUtil.detectCharsetFromBom',
  },
  {
    id: 'jn-meta-charset',
    kind: 'natural',
    query: "when no encoding is given, how is a page's character set found from its meta tag?",
    expected: [{ path: `${root}/helper/DataUtil.java`, start: 259, end: 299 }],
    note: 'DataUtil.detectCharset: first parse as UTF-8, then read meta http-equiv / charset',
  },
  {
    id: 'jn-relative-link',
    kind: 'natural',
    query: "how does a relative link get turned into an absolute URL against the page's base address?",
    expected: [
      { path: `${root}/internal/StringUtil.java`, start: 300, end: 314 },
      { path: `${root}/internal/StringUtil.java`, start: 322, end: 341 },
      { path: `${root}/nodes/Node.java`, start: 260, end: 266 },
    ],
    note: 'StringUtil.resolve (either overload) or Node.absUrl',
  },
  {
    id: 'jn-unsafe-scheme',
    kind: 'natural',
    query: "how does the sanitizer reject links whose scheme, like javascript:, isn't allowed?",
    expected: [
      { path: `${root}/safety/Safelist.java`, start: 561, end: 580 },
      { path: `${root}/safety/Safelist.java`, start: 530, end: 552 },
    ],
    note: 'Safelist.isSafeProtocol or isSafeAttribute',
  },
  {
    id: 'jn-discarded-nodes',
    kind: 'natural',
    query: 'what happens to comments and disallowed tags when untrusted HTML is sanitized?',
    expected: [{ path: `${root}/safety/Cleaner.java`, start: 148, end: 173 }],
    note: 'Cleaner.CleaningVisitor.head',
  },
  {
    id: 'jn-validate-user-input',
    kind: 'natural',
    query: 'how can I check whether user-submitted HTML only uses allowed tags without changing it?',
    expected: [
      { path: `${root}/safety/Cleaner.java`, start: 94, end: 100 },
      { path: `${root}/safety/Cleaner.java`, start: 124, end: 133 },
    ],
    note: 'Cleaner.isValid / isValidBodyHtml',
  },
  {
    id: 'jn-unique-path',
    kind: 'natural',
    query: 'how is a unique CSS path built for an element so it can be found again later?',
    expected: [
      { path: `${root}/nodes/Element.java`, start: 1112, end: 1130 },
      { path: `${root}/nodes/Element.java`, start: 1089, end: 1101 },
      { path: `${root}/nodes/Element.java`, start: 1132, end: 1150 },
    ],
    note: 'Element.cssSelector, uniqueIdSelector or cssSelectorComponent',
  },
  {
    id: 'jn-text-separators',
    kind: 'natural',
    query: "when extracting readable text, where is a space inserted between block elements so words don't run together?",
    expected: [{ path: `${root}/nodes/Element.java`, start: 1563, end: 1587 }],
    note: 'Element.TextAccumulator head / tail',
  },
  {
    id: 'jn-keep-pre-whitespace',
    kind: 'natural',
    query: 'how does it know to keep the whitespace inside a pre tag or any of its descendants?',
    expected: [{ path: `${root}/nodes/Element.java`, start: 1691, end: 1703 }],
    note: 'Element.preserveWhitespace',
  },
  {
    id: 'jn-unencodable-characters',
    kind: 'natural',
    query: "how are characters the output charset can't represent written out as numeric references?",
    expected: [
      { path: `${root}/nodes/Entities.java`, start: 301, end: 307 },
      { path: `${root}/nodes/Entities.java`, start: 264, end: 282 },
    ],
    note: 'Entities.appendEncoded, or the fallback branch of appendEscaped',
  },
  {
    id: 'jn-entity-without-semicolon',
    kind: 'natural',
    query: 'how is an entity name written without its trailing semicolon, like &notit, matched?',
    expected: [
      { path: `${root}/nodes/Entities.java`, start: 147, end: 158 },
      { path: `${root}/parser/Tokeniser.java`, start: 182, end: 199 },
    ],
    note: 'Entities.findPrefix, or the named branch of Tokeniser.consumeCharacterReference',
  },
  {
    id: 'jn-buffer-refill',
    kind: 'natural',
    query: 'how does the reader refill its character buffer from the input as parsing moves forward?',
    expected: [{ path: `${root}/parser/CharacterReader.java`, start: 78, end: 121 }],
    note: 'CharacterReader.bufferUp / doBufferUp',
  },
  {
    id: 'jn-line-column',
    kind: 'natural',
    query: 'how is a source offset turned into a line and column number for error positions?',
    expected: [
      { path: `${root}/internal/LineMap.java`, start: 42, end: 66 },
      { path: `${root}/parser/CharacterReader.java`, start: 191, end: 215 },
    ],
    note: 'LineMap.lineNumber / columnNumber / lineStartIndex, or CharacterReader.lineNumber / columnNumber',
  },
  {
    id: 'jn-balanced-parentheses',
    kind: 'natural',
    query: 'how does the selector parser read an argument in parentheses that contains nested brackets or quoted strings?',
    expected: [{ path: `${root}/parser/TokenQueue.java`, start: 156, end: 196 }],
    note: 'TokenQueue.chompBalanced',
  },
  {
    id: 'jn-table-misplaced-content',
    kind: 'natural',
    query: 'where does content that appears directly inside a table, outside any cell, get moved to?',
    expected: [{ path: `${root}/parser/HtmlTreeBuilder.java`, start: 1127, end: 1147 }],
    note: 'HtmlTreeBuilder.insertInFosterParent',
  },
  {
    id: 'jn-reopen-formatting',
    kind: 'natural',
    query: 'after a block closes, how are still-open bold or italic tags reopened for the following content?',
    expected: [{ path: `${root}/parser/HtmlTreeBuilder.java`, start: 1046, end: 1082 }],
    note: 'HtmlTreeBuilder.reconstructFormattingElements',
  },
  {
    id: 'jn-repeated-formatting',
    kind: 'natural',
    query: 'when the same formatting tag with identical attributes is opened again and again, which earlier copy is dropped?',
    expected: [{ path: `${root}/parser/HtmlTreeBuilder.java`, start: 1018, end: 1044 }],
    note: 'HtmlTreeBuilder.checkActiveFormattingElements / isSameFormattingElement (the "Noah\'s Ark" clause)',
  },
  {
    id: 'jn-nesting-limit',
    kind: 'natural',
    query: 'what stops a document with thousands of nested open tags from growing the open element stack without bound?',
    expected: [{ path: `${root}/parser/TreeBuilder.java`, start: 199, end: 224 }],
    note: 'TreeBuilder.enforceStackDepthLimit (and defaultMaxDepth)',
  },
  {
    id: 'jn-body-size-cap',
    kind: 'natural',
    query: 'how does reading a response stop once the configured maximum number of bytes has been read?',
    expected: [{ path: `${root}/internal/ControllableInputStream.java`, start: 73, end: 111 }],
    note: 'ControllableInputStream.read',
  },
  {
    id: 'jn-read-time-limit',
    kind: 'natural',
    query: 'how is the overall time limit enforced while downloading the response body?',
    expected: [
      { path: `${root}/internal/ControllableInputStream.java`, start: 234, end: 241 },
      { path: `${root}/internal/ControllableInputStream.java`, start: 88, end: 110 },
    ],
    note: 'ControllableInputStream.expired, or the read loop that checks it',
  },
  {
    id: 'jn-submitted-fields',
    kind: 'natural',
    query: 'which inputs are included when a form is submitted, and what about unchecked checkboxes or disabled fields?',
    expected: [{ path: `${root}/nodes/FormElement.java`, start: 98, end: 135 }],
    note: 'FormElement.formData',
  },
  {
    id: 'jn-update-meta-charset',
    kind: 'natural',
    query: "when the output encoding is changed, how is the page's meta charset tag updated or added?",
    expected: [
      { path: `${root}/nodes/Document.java`, start: 303, end: 319 },
      { path: `${root}/nodes/Document.java`, start: 270, end: 273 },
    ],
    note: 'Document.ensureMetaCharsetElement, or Document.charset(Charset)',
  },
  {
    id: 'jn-repeated-attribute',
    kind: 'natural',
    query: 'if a tag repeats the same attribute name twice, which one is kept?',
    expected: [{ path: `${root}/nodes/Attributes.java`, start: 695, end: 711 }],
    note: 'Attributes.deduplicate',
  },
  {
    id: 'jn-odd-even-formula',
    kind: 'natural',
    query: 'how are formulas like 2n+1, odd and even parsed in positional pseudo-class selectors?',
    expected: [{ path: `${root}/select/QueryParser.java`, start: 388, end: 417 }],
    note: 'QueryParser.cssNthChild',
  },
  {
    id: 'jn-skip-or-remove-subtree',
    kind: 'natural',
    query: 'during a controllable tree walk, how can a visitor skip a subtree or remove the node it is on?',
    expected: [{ path: `${root}/select/NodeTraversor.java`, start: 115, end: 162 }],
    note: 'NodeTraversor.filter',
  },
  {
    id: 'jn-reuse-builders',
    kind: 'natural',
    query: 'how are string builders reused across calls instead of allocating a new one each time?',
    expected: [
      { path: `${root}/internal/SoftPool.java`, start: 38, end: 56 },
      { path: `${root}/internal/StringUtil.java`, start: 389, end: 416 },
    ],
    note: 'SoftPool.borrow / release, or StringUtil.borrowBuilder / releaseBuilder',
  },
  {
    id: 'jn-normalize-url',
    kind: 'natural',
    query: 'how are non-English host names and accented characters in a URL path made safe before the request is sent?',
    expected: [
      { path: `${root}/helper/UrlBuilder.java`, start: 33, end: 65 },
      { path: `${root}/helper/UrlBuilder.java`, start: 88, end: 107 },
    ],
    note: 'UrlBuilder.build (IDN, URI) or appendToAscii',
  },
  {
    id: 'jn-space-encoding',
    kind: 'natural',
    query: 'why do spaces become a plus sign in the query string but %20 in the path?',
    expected: [{ path: `${root}/helper/UrlBuilder.java`, start: 88, end: 107 }],
    note: 'UrlBuilder.appendToAscii',
  },
  {
    id: 'jn-response-cookies',
    kind: 'natural',
    query: 'how are Set-Cookie response headers turned into the simple name and value map on the response?',
    expected: [{ path: `${root}/helper/CookieUtil.java`, start: 89, end: 119 }],
    note: 'CookieUtil.storeCookies / parseCookie',
  },
  {
    id: 'jn-merge-request-cookies',
    kind: 'natural',
    query: 'how are stored session cookies merged with the cookies set on the request before it is sent?',
    expected: [{ path: `${root}/helper/CookieUtil.java`, start: 34, end: 68 }],
    note: 'CookieUtil.applyCookiesToRequest',
  },
  {
    id: 'jn-garbled-headers',
    kind: 'natural',
    query: 'response headers sent in UTF-8 come out garbled; where are they decoded again correctly?',
    expected: [{ path: `${root}/helper/HttpConnection.java`, start: 1232, end: 1293 }],
    note: 'Response.fixHeaderEncoding / looksLikeUtf8',
  },
  {
    id: 'jn-pretty-print-newline',
    kind: 'natural',
    query: 'when pretty printing, how does it decide whether a node goes on a new indented line?',
    expected: [{ path: `${root}/nodes/Printer.java`, start: 140, end: 156 }],
    note: 'Printer.Pretty.shouldIndent',
  },
  {
    id: 'jn-binary-content-refused',
    kind: 'natural',
    query: 'why does fetching a PDF or an image fail unless the content type check is turned off?',
    expected: [{ path: `${root}/helper/HttpConnection.java`, start: 970, end: 983 }],
    note: 'Response.execute: UnsupportedMimeTypeException unless ignoreContentType',
  },
];

/** Every third query, counting from the third, is held out. */
export const jsoupQueries: QualityQuery[] = drafts.map((draft, index) => ({ ...draft, split: index % 3 === 2 ? 'held-out' : 'tune' }));
