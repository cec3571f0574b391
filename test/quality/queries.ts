/**
 * Retrieval quality queries on the pinned CPython 3.11.2 standard library corpus (`corpus.ts`).
 * Every expected location was read in the source: a query is answered when a returned snippet
 * covers at least half of one expected range (or, with no range, any part of that file).
 * Expected ranges are deliberately tight — the lines that hold the answer, not whole classes.
 */

export type QueryKind = 'symbol' | 'path' | 'error' | 'phrase' | 'natural';

export interface ExpectedLocation {
  path: string;
  /** 1-based inclusive; omitted means "any part of this file". */
  start?: number;
  end?: number;
}

export interface QualityQuery {
  id: string;
  kind: QueryKind;
  query: string;
  /** Any one of these answers the query. */
  expected: ExpectedLocation[];
  /** What the answer is, for whoever reads a failure. */
  note: string;
  /** Held-out queries run only when asked for (`--split held-out|all`); absent means tune. */
  split?: 'tune' | 'held-out';
}

const notFoundTraceback = `Traceback (most recent call last):
  File "/tmp/fetch.py", line 5, in <module>
    urllib.request.urlopen(f"http://127.0.0.1:{srv.server_port}/missing")
  File "/usr/lib/python3.11/urllib/request.py", line 216, in urlopen
    return opener.open(url, data, timeout)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/urllib/request.py", line 525, in open
    response = meth(req, response)
               ^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/urllib/request.py", line 634, in http_response
    response = self.parent.error(
               ^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/urllib/request.py", line 563, in error
    return self._call_chain(*args)
           ^^^^^^^^^^^^^^^^^^^^^^^
  File "/usr/lib/python3.11/urllib/request.py", line 496, in _call_chain
    result = func(*args)
             ^^^^^^^^^^^
  File "/usr/lib/python3.11/urllib/request.py", line 643, in http_error_default
    raise HTTPError(req.full_url, code, msg, hdrs, fp)
urllib.error.HTTPError: HTTP Error 404: File not found`;

const cookieTraceback = `Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/usr/lib/python3.11/http/cookies.py", line 480, in __setitem__
    self.__set(key, rval, cval)
  File "/usr/lib/python3.11/http/cookies.py", line 470, in __set
    M.set(key, real_value, coded_value)
  File "/usr/lib/python3.11/http/cookies.py", line 335, in set
    raise CookieError('Illegal key %r' % (key,))
http.cookies.CookieError: Illegal key 'a b'`;

export const qualityQueries: QualityQuery[] = [
  // ---- symbols: qualified, simple, camelCase, other languages' separators -------------------
  {
    id: 's-basecookie-load',
    kind: 'symbol',
    query: 'BaseCookie.load',
    expected: [{ path: 'http/cookies.py', start: 507, end: 519 }],
    note: 'BaseCookie.load method',
  },
  {
    id: 's-httpresponse-begin',
    kind: 'symbol',
    query: 'HTTPResponse.begin',
    expected: [{ path: 'http/client.py', start: 311, end: 316 }],
    note: 'HTTPResponse.begin method header',
  },
  {
    id: 's-urlsplit',
    kind: 'symbol',
    query: 'urlsplit',
    expected: [{ path: 'urllib/parse.py', start: 470, end: 476 }],
    note: 'def urlsplit',
  },
  {
    id: 's-cpp-separator',
    kind: 'symbol',
    query: 'CookieJar::extract_cookies',
    expected: [{ path: 'http/cookiejar.py', start: 1680, end: 1690 }],
    note: 'CookieJar.extract_cookies written with ::',
  },
  {
    id: 's-hash-separator',
    kind: 'symbol',
    query: 'FeedParser#feed',
    expected: [{ path: 'email/feedparser.py', start: 173, end: 176 }],
    note: 'FeedParser.feed written with #',
  },
  {
    id: 's-parse-qsl',
    kind: 'symbol',
    query: 'parse_qsl',
    expected: [{ path: 'urllib/parse.py', start: 745, end: 750 }],
    note: 'def parse_qsl',
  },
  {
    id: 's-http2time',
    kind: 'symbol',
    query: 'http2time',
    expected: [{ path: 'http/cookiejar.py', start: 232, end: 240 }],
    note: 'def http2time',
  },
  {
    id: 's-call-parens',
    kind: 'symbol',
    query: 'OpenerDirector.open()',
    expected: [{ path: 'urllib/request.py', start: 500, end: 510 }],
    note: 'OpenerDirector.open with call parentheses',
  },
  {
    id: 's-defined-where',
    kind: 'symbol',
    query: 'where is decode_header defined?',
    expected: [{ path: 'email/header.py', start: 61, end: 66 }],
    note: 'def decode_header',
  },
  {
    id: 's-private-method',
    kind: 'symbol',
    query: 'MozillaCookieJar._really_load',
    expected: [{ path: 'http/cookiejar.py', start: 2014, end: 2020 }],
    note: 'MozillaCookieJar._really_load',
  },
  {
    id: 's-camel-case',
    kind: 'symbol',
    query: 'isReservedKey',
    expected: [{ path: 'http/cookies.py', start: 328, end: 329 }],
    note: 'Morsel.isReservedKey',
  },
  {
    id: 's-snake-case-long',
    kind: 'symbol',
    query: 'getproxies_environment',
    expected: [{ path: 'urllib/request.py', start: 2493, end: 2500 }],
    note: 'def getproxies_environment',
  },
  {
    id: 's-class',
    kind: 'symbol',
    query: 'HTTPRedirectHandler',
    expected: [{ path: 'urllib/request.py', start: 645, end: 651 }],
    note: 'class HTTPRedirectHandler',
  },

  // ---- paths: relative, basename, absolute, Windows separators, line suffixes ----------------
  { id: 'p-relative', kind: 'path', query: 'http/cookies.py', expected: [{ path: 'http/cookies.py' }], note: 'the file itself' },
  { id: 'p-basename', kind: 'path', query: 'cookiejar.py', expected: [{ path: 'http/cookiejar.py' }], note: 'basename only' },
  {
    id: 'p-robotparser',
    kind: 'path',
    query: 'open urllib/robotparser.py',
    expected: [{ path: 'urllib/robotparser.py' }],
    note: 'path inside a sentence',
  },
  {
    id: 'p-nested',
    kind: 'path',
    query: 'email/mime/multipart.py',
    expected: [{ path: 'email/mime/multipart.py' }],
    note: 'nested package path',
  },
  {
    id: 'p-absolute',
    kind: 'path',
    query: '/usr/lib/python3.11/json/decoder.py',
    expected: [{ path: 'json/decoder.py' }],
    note: 'absolute path from another machine',
  },
  { id: 'p-windows', kind: 'path', query: 'email\\feedparser.py', expected: [{ path: 'email/feedparser.py' }], note: 'Windows separators' },
  {
    id: 'p-line-suffix',
    kind: 'path',
    query: 'urllib/parse.py:786',
    expected: [{ path: 'urllib/parse.py', start: 784, end: 787 }],
    note: 'path:line points into parse_qsl',
  },
  {
    id: 'p-path-and-symbol',
    kind: 'path',
    query: 'http/server.py send_error',
    expected: [{ path: 'http/server.py', start: 436, end: 440 }],
    note: 'a path narrowed by a symbol',
  },

  // ---- error messages and tracebacks, as pasted -------------------------------------------------
  {
    id: 'e-port-range',
    kind: 'error',
    query: 'ValueError: Port out of range 0-65535',
    expected: [{ path: 'urllib/parse.py', start: 183, end: 184 }],
    note: 'SplitResult.port range check',
  },
  {
    id: 'e-remote-disconnected',
    kind: 'error',
    query: 'http.client.RemoteDisconnected: Remote end closed connection without response',
    expected: [{ path: 'http/client.py', start: 284, end: 288 }],
    note: 'HTTPResponse._read_status on an empty status line',
  },
  {
    id: 'e-illegal-key',
    kind: 'error',
    query: "http.cookies.CookieError: Illegal key 'a b'",
    expected: [{ path: 'http/cookies.py', start: 334, end: 335 }],
    note: 'Morsel.set key check',
  },
  {
    id: 'e-unknown-url-type',
    kind: 'error',
    query: 'urllib.error.URLError: <urlopen error unknown url type: htps>',
    expected: [{ path: 'urllib/request.py', start: 1416, end: 1419 }],
    note: 'UnknownHandler.unknown_open',
  },
  {
    id: 'e-json-expecting-value',
    kind: 'error',
    query: 'json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)',
    expected: [
      { path: 'json/decoder.py', start: 353, end: 355 },
      { path: 'json/decoder.py', start: 187, end: 188 },
      { path: 'json/decoder.py', start: 231, end: 232 },
    ],
    note: 'raw_decode (and the two container parsers raising the same message)',
  },
  {
    id: 'e-mix-str',
    kind: 'error',
    query: 'TypeError: Cannot mix str and non-str arguments',
    expected: [{ path: 'urllib/parse.py', start: 129, end: 130 }],
    note: '_coerce_args',
  },
  {
    id: 'e-header-value',
    kind: 'error',
    query: "ValueError: Invalid header value b'text/html\\r\\nX-Injected: 1'",
    expected: [{ path: 'http/client.py', start: 1259, end: 1260 }],
    note: 'HTTPConnection.putheader value check',
  },
  {
    id: 'e-max-fields',
    kind: 'error',
    query: 'ValueError: Max number of fields exceeded',
    expected: [{ path: 'urllib/parse.py', start: 785, end: 786 }],
    note: 'parse_qsl max_num_fields',
  },
  {
    id: 'e-line-too-long',
    kind: 'error',
    query: 'http.client.LineTooLong: got more than 65536 bytes when reading header line',
    expected: [
      { path: 'http/client.py', start: 1514, end: 1517 },
      { path: 'http/client.py', start: 215, end: 216 },
    ],
    note: 'LineTooLong message, or _read_headers raising it',
  },
  {
    id: 'e-traceback-404',
    kind: 'error',
    query: notFoundTraceback,
    expected: [{ path: 'urllib/request.py', start: 641, end: 643 }],
    note: 'innermost frame: HTTPDefaultErrorHandler.http_error_default',
  },
  {
    id: 'e-traceback-cookie',
    kind: 'error',
    query: cookieTraceback,
    expected: [{ path: 'http/cookies.py', start: 331, end: 335 }],
    note: 'innermost frame: Morsel.set',
  },

  // ---- quoted phrases from comments, docstrings and code -----------------------------------------
  {
    id: 'ph-docstring-quirk',
    kind: 'phrase',
    query: '"as G-d intended"',
    expected: [{ path: 'urllib/parse.py', start: 772, end: 772 }],
    note: 'parse_qsl docstring',
  },
  {
    id: 'ph-netscape-hack',
    kind: 'phrase',
    query: 'what does "Proxy-Connection is a netscape hack" mean',
    expected: [{ path: 'http/client.py', start: 404, end: 406 }],
    note: '_check_close comment',
  },
  {
    id: 'ph-vanishingly',
    kind: 'phrase',
    query: '"vanishingly small number of sites"',
    expected: [{ path: 'http/client.py', start: 547, end: 548 }],
    note: '_read_and_discard_trailer comment',
  },
  {
    id: 'ph-headers-only',
    kind: 'phrase',
    query: '"Headers-only parsing is a backwards compatibility hack"',
    expected: [{ path: 'email/feedparser.py', start: 241, end: 243 }],
    note: '_parsegen comment',
  },
  {
    id: 'ph-code-backticks',
    kind: 'phrase',
    query: '`self._policy._now = self._now = int(time.time())`',
    expected: [
      { path: 'http/cookiejar.py', start: 1366, end: 1366 },
      { path: 'http/cookiejar.py', start: 1605, end: 1605 },
      { path: 'http/cookiejar.py', start: 1658, end: 1658 },
    ],
    note: 'a line of code in backticks (three occurrences)',
  },
  {
    id: 'ph-lowercase-variables',
    kind: 'phrase',
    query: "'in order to prefer lowercase variables'",
    expected: [{ path: 'urllib/request.py', start: 2503, end: 2504 }],
    note: 'getproxies_environment comment, single quotes',
  },
  {
    id: 'ph-across-lines',
    kind: 'phrase',
    query: '"has not defined a boundary"',
    expected: [{ path: 'email/feedparser.py', start: 308, end: 309 }],
    note: 'a phrase broken across two comment lines',
  },
  {
    id: 'ph-xss',
    kind: 'phrase',
    query: '“HTML encode to prevent Cross Site Scripting attacks”',
    expected: [{ path: 'http/server.py', start: 474, end: 474 }],
    note: 'send_error comment, typographic quotes',
  },
  {
    id: 'ph-docstring',
    kind: 'phrase',
    query: '"Return sequence of Cookie objects extracted from response object"',
    expected: [{ path: 'http/cookiejar.py', start: 1600, end: 1600 }],
    note: 'make_cookies docstring',
  },

  // ---- natural questions ------------------------------------------------------------------------
  {
    id: 'n-cookies-parsed',
    kind: 'natural',
    query: 'where are cookies parsed?',
    expected: [
      { path: 'http/cookies.py', start: 521, end: 545 },
      { path: 'http/cookies.py', start: 507, end: 515 },
      { path: 'http/cookiejar.py', start: 466, end: 480 },
      { path: 'http/cookiejar.py', start: 348, end: 360 },
    ],
    note: 'BaseCookie.__parse_string / load, or cookiejar parse_ns_headers / split_header_words',
  },
  {
    id: 'n-status-line',
    kind: 'natural',
    query: 'how is the status line of an HTTP response read?',
    expected: [{ path: 'http/client.py', start: 278, end: 300 }],
    note: 'HTTPResponse._read_status',
  },
  {
    id: 'n-redirects',
    kind: 'natural',
    query: 'how does urllib follow redirects',
    expected: [
      { path: 'urllib/request.py', start: 653, end: 670 },
      { path: 'urllib/request.py', start: 691, end: 710 },
    ],
    note: 'HTTPRedirectHandler.redirect_request / http_error_302',
  },
  {
    id: 'n-proxy-env',
    kind: 'natural',
    query: 'which environment variables configure the proxy?',
    expected: [{ path: 'urllib/request.py', start: 2493, end: 2520 }],
    note: 'getproxies_environment',
  },
  {
    id: 'n-chunked',
    kind: 'natural',
    query: 'how are chunked responses decoded',
    expected: [
      { path: 'http/client.py', start: 523, end: 537 },
      { path: 'http/client.py', start: 553, end: 575 },
      { path: 'http/client.py', start: 577, end: 597 },
    ],
    note: '_read_next_chunk_size / _get_chunk_left / _read_chunked',
  },
  {
    id: 'n-content-type',
    kind: 'natural',
    query: 'how is the content type of an email message determined',
    expected: [{ path: 'email/message.py', start: 591, end: 613 }],
    note: 'Message.get_content_type',
  },
  {
    id: 'n-parse-address',
    kind: 'natural',
    query: 'parse an email address into the real name and the address',
    expected: [
      { path: 'email/utils.py', start: 323, end: 352 },
      { path: 'email/utils.py', start: 151, end: 170 },
    ],
    note: 'email.utils.parseaddr / getaddresses',
  },
  {
    id: 'n-query-string',
    kind: 'natural',
    query: 'split a query string into key value pairs',
    expected: [
      { path: 'urllib/parse.py', start: 788, end: 810 },
      { path: 'urllib/parse.py', start: 745, end: 775 },
    ],
    note: 'parse_qsl',
  },
  {
    id: 'n-send-error',
    kind: 'natural',
    query: 'how does the HTTP server send an error response to the client?',
    expected: [{ path: 'http/server.py', start: 436, end: 486 }],
    note: 'BaseHTTPRequestHandler.send_error',
  },
  {
    id: 'n-boundary',
    kind: 'natural',
    query: 'how is the multipart boundary chosen',
    expected: [{ path: 'email/generator.py', start: 385, end: 401 }],
    note: 'Generator._make_boundary',
  },
  {
    id: 'n-json-escape',
    kind: 'natural',
    query: 'how does the json encoder escape non-ascii characters',
    expected: [{ path: 'json/encoder.py', start: 49, end: 70 }],
    note: 'py_encode_basestring_ascii',
  },
  {
    id: 'n-robots',
    kind: 'natural',
    query: 'check whether a robot is allowed to fetch a URL',
    expected: [{ path: 'urllib/robotparser.py', start: 154, end: 181 }],
    note: 'RobotFileParser.can_fetch',
  },
  {
    id: 'n-basic-auth',
    kind: 'natural',
    query: 'where is the basic auth Authorization header added to the request',
    expected: [{ path: 'urllib/request.py', start: 1012, end: 1023 }],
    note: 'AbstractBasicAuthHandler.retry_http_basic_auth',
  },
  {
    id: 'n-keep-alive',
    kind: 'natural',
    query: 'when does the http client close the connection after a response (keep-alive)?',
    expected: [{ path: 'http/client.py', start: 383, end: 410 }],
    note: 'HTTPResponse._check_close',
  },
  {
    id: 'n-email-date',
    kind: 'natural',
    query: 'format a date for an email Date header',
    expected: [
      { path: 'email/utils.py', start: 241, end: 268 },
      { path: 'email/utils.py', start: 270, end: 286 },
    ],
    note: 'formatdate / format_datetime',
  },
  {
    id: 'n-save-netscape',
    kind: 'natural',
    query: 'how are cookies saved to a file in the Netscape format',
    expected: [{ path: 'http/cookiejar.py', start: 2087, end: 2110 }],
    note: 'MozillaCookieJar.save',
  },
  {
    id: 'n-request-line',
    kind: 'natural',
    query: 'how does the server parse the request line and the HTTP version',
    expected: [{ path: 'http/server.py', start: 267, end: 300 }],
    note: 'BaseHTTPRequestHandler.parse_request',
  },
  {
    id: 'n-max-headers',
    kind: 'natural',
    query: 'is there a limit on how many headers an HTTP response may have?',
    expected: [
      { path: 'http/client.py', start: 206, end: 222 },
      { path: 'http/client.py', start: 111, end: 112 },
    ],
    note: '_read_headers and _MAXHEADERS',
  },
];
