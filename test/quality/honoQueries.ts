/**
 * Error-message and natural-language queries on a second real code base in another language:
 * Hono (TypeScript web framework) at the pinned commit in `honoCorpus.ts`. Every expected range
 * was read in that commit's source. Error messages are literal strings the code throws or logs,
 * with their placeholders filled the way a user's console shows them; natural questions are
 * written as a developer would ask, without the code's identifiers. Every third query of each
 * kind (the third, sixth, ...) is held out: it runs only with `--split held-out` or `--split all`.
 */
import type { QualityQuery } from './queries';

type Draft = Omit<QualityQuery, 'split'>;

const errors: Draft[] = [
  {
    id: 'he-next-twice', kind: 'error',
    query: 'Error: next() called multiple times',
    expected: [{ path: 'src/compose.ts', start: 33, end: 35 }],
    note: 'compose dispatch guard',
  },
  {
    id: 'he-not-finalized', kind: 'error',
    query: 'Error: Context is not finalized. Did you forget to return a Response object or `await next()`?',
    expected: [{ path: 'src/hono-base.ts', start: 456, end: 460 }],
    note: 'Hono #dispatch after an async composed chain',
  },
  {
    id: 'he-matcher-built', kind: 'error',
    query: 'Error: Can not add a route since the matcher is already built.',
    expected: [
      { path: 'src/router.ts', start: 21, end: 22 },
      { path: 'src/router/reg-exp-router/router.ts', start: 72, end: 74 },
      { path: 'src/router/smart-router/router.ts', start: 14, end: 16 },
    ],
    note: 'the message constant, or a router raising it',
  },
  {
    id: 'he-children-only', kind: 'error',
    query: 'Uncaught Error: Children.only() expects only one child',
    expected: [{ path: 'src/jsx/children.ts', start: 14, end: 16 }],
    note: 'Children.only',
  },
  {
    id: 'he-unmounted-root', kind: 'error',
    query: 'Error: Cannot update an unmounted root',
    expected: [{ path: 'src/jsx/dom/client.ts', start: 40, end: 42 }],
    note: 'createRoot().render after unmount',
  },
  {
    id: 'he-async-render-to-string', kind: 'error',
    query: 'Error: Async component is not supported in renderToString',
    expected: [{ path: 'src/jsx/dom/server.ts', start: 26, end: 28 }],
    note: 'jsx/dom renderToString',
  },
  {
    id: 'he-event-handler', kind: 'error',
    query: 'Error: Event handler for "onClick" is not a function',
    expected: [{ path: 'src/jsx/dom/render.ts', start: 181, end: 183 }],
    note: 'applyProps event listener check',
  },
  {
    id: 'he-jsx-tag-name', kind: 'error',
    query: 'Error: Invalid JSX tag name: my tag',
    expected: [{ path: 'src/jsx/base.ts', start: 178, end: 180 }],
    note: 'JSXNode tag validation',
  },
  {
    id: 'he-dangerously-set', kind: 'error',
    query: 'Error: Can only set one of `children` or `props.dangerouslySetInnerHTML`.',
    expected: [{ path: 'src/jsx/base.ts', start: 251, end: 253 }],
    note: 'JSXNode toStringToBuffer props check',
  },
  {
    id: 'he-function-prop', kind: 'error',
    query: "Error: Invalid prop 'onclick' of type 'function' supplied to 'button'.",
    expected: [{ path: 'src/jsx/base.ts', start: 260, end: 262 }],
    note: 'function props in server rendering',
  },
  {
    id: 'he-cookie-name', kind: 'error',
    query: 'Error: Invalid cookie name',
    expected: [{ path: 'src/utils/cookie.ts', start: 174, end: 176 }],
    note: '_serialize name check',
  },
  {
    id: 'he-secure-prefix', kind: 'error',
    query: 'Error: __Secure- Cookie must have Secure attributes',
    expected: [{ path: 'src/utils/cookie.ts', start: 181, end: 183 }],
    note: '_serialize __Secure- prefix',
  },
  {
    id: 'he-host-path', kind: 'error',
    query: 'Error: __Host- Cookie must have Path attributes with "/"',
    expected: [{ path: 'src/utils/cookie.ts', start: 191, end: 193 }],
    note: '_serialize __Host- prefix path',
  },
  {
    id: 'he-max-age', kind: 'error',
    query: 'Error: Cookies Max-Age SHOULD NOT be greater than 400 days (34560000 seconds) in duration.',
    expected: [{ path: 'src/utils/cookie.ts', start: 207, end: 212 }],
    note: '_serialize max age bound',
  },
  {
    id: 'he-partitioned', kind: 'error',
    query: 'Error: Partitioned Cookie must have Secure attributes',
    expected: [{ path: 'src/utils/cookie.ts', start: 252, end: 254 }],
    note: '_serialize partitioned',
  },
  {
    id: 'he-jwks-fetch', kind: 'error',
    query: 'Error: failed to fetch JWKS from https://auth.example.com/.well-known/jwks.json',
    expected: [{ path: 'src/utils/jwt/jwt.ts', start: 232, end: 234 }],
    note: 'verifyWithJwks fetch failure',
  },
  {
    id: 'he-jwks-keys-missing', kind: 'error',
    query: 'Error: invalid JWKS response. "keys" field is missing',
    expected: [{ path: 'src/utils/jwt/jwt.ts', start: 236, end: 238 }],
    note: 'verifyWithJwks response check',
  },
  {
    id: 'he-subtle-undefined', kind: 'error',
    query: 'Error: `crypto.subtle.importKey` is undefined. JWT auth middleware requires it.',
    expected: [
      { path: 'src/utils/jwt/jws.ts', start: 55, end: 57 },
      { path: 'src/utils/jwt/jws.ts', start: 79, end: 81 },
      { path: 'src/middleware/jwt/jwt.ts', start: 74, end: 76 },
    ],
    note: 'three places raise it',
  },
  {
    id: 'he-connection-header', kind: 'error',
    query: 'HTTPException: Invalid Connection header value: keep-alive;, x foo',
    expected: [{ path: 'src/helper/proxy/index.ts', start: 69, end: 73 }],
    note: 'proxy strict Connection processing',
  },
  {
    id: 'he-path-traversal', kind: 'error',
    query: 'Error: Path traversal detected: "../../etc/passwd" is outside the output directory',
    expected: [{ path: 'src/helper/ssg/utils.ts', start: 84, end: 86 }],
    note: 'SSG output path check',
  },
  {
    id: 'he-ws-upgrade', kind: 'error',
    query: 'Error: Failed to upgrade WebSocket',
    expected: [{ path: 'src/helper/websocket/index.ts', start: 133, end: 135 }],
    note: 'websocket helper',
  },
  {
    id: 'he-bun-env', kind: 'error',
    query: 'TypeError: env has to include the 2nd argument of fetch.',
    expected: [{ path: 'src/adapter/bun/conninfo.ts', start: 19, end: 21 }, { path: 'src/adapter/bun/websocket.ts', start: 58, end: 60 }],
    note: 'Bun adapter, two places',
  },
  {
    id: 'he-request-ip', kind: 'error',
    query: 'TypeError: server.requestIP is not a function.',
    expected: [{ path: 'src/adapter/bun/conninfo.ts', start: 22, end: 24 }],
    note: 'Bun getConnInfo',
  },
  {
    id: 'he-server-snapshot', kind: 'error',
    query: 'Error: getServerSnapshot is required for server side rendering',
    expected: [{ path: 'src/jsx/hooks/index.ts', start: 409, end: 411 }],
    note: 'useSyncExternalStore on the server',
  },
  {
    id: 'he-lambda-processing', kind: 'error',
    query: "Error processing request: TypeError: Cannot read properties of undefined (reading 'method')",
    expected: [
      { path: 'src/adapter/aws-lambda/handler.ts', start: 185, end: 187 },
      { path: 'src/adapter/aws-lambda/handler.ts', start: 259, end: 261 },
    ],
    note: 'aws-lambda handle / streamHandle catch (console.error)',
  },
  {
    id: 'he-not-registered', kind: 'error',
    query: 'Error: Path /users/:id is not registered',
    expected: [{ path: 'src/router/reg-exp-router/prepared-router.ts', start: 74, end: 76 }],
    note: 'PreparedRegExpRouter.add',
  },
  {
    id: 'he-no-active-router', kind: 'error',
    query: 'Error: No active router has been determined yet.',
    expected: [{ path: 'src/router/smart-router/router.ts', start: 64, end: 66 }],
    note: 'SmartRouter.activeRouter',
  },
  {
    id: 'he-request-context', kind: 'error',
    query: 'Error: RequestContext is not provided.',
    expected: [{ path: 'src/middleware/jsx-renderer/index.ts', start: 159, end: 161 }],
    note: 'useRequestContext outside jsxRenderer',
  },
  {
    id: 'he-fallback-language', kind: 'error',
    query: 'Error: Fallback language must be included in supported languages',
    expected: [{ path: 'src/middleware/language/language.ts', start: 205, end: 207 }],
    note: 'language validateOptions',
  },
  {
    id: 'he-metrics', kind: 'error',
    query: 'Metrics not initialized! Please add the `timing()` middleware to this route!',
    expected: [
      { path: 'src/middleware/timing/timing.ts', start: 157, end: 159 },
      { path: 'src/middleware/timing/timing.ts', start: 189, end: 191 },
      { path: 'src/middleware/timing/timing.ts', start: 210, end: 212 },
    ],
    note: 'setMetric / startTime / endTime warning',
  },
  {
    id: 'he-timer-missing', kind: 'error',
    query: 'Timer "db" does not exist!',
    expected: [{ path: 'src/middleware/timing/timing.ts', start: 215, end: 217 }],
    note: 'endTime warning',
  },
  {
    id: 'he-jwk-options', kind: 'error',
    query: 'Error: JWK auth middleware requires options for either "keys" or "jwks_uri" or both',
    expected: [{ path: 'src/middleware/jwk/jwk.ts', start: 70, end: 72 }],
    note: 'jwk middleware options',
  },
  {
    id: 'he-bearer-options', kind: 'error',
    query: 'Error: bearer auth middleware requires options for "token" or "verifyToken"',
    expected: [{ path: 'src/middleware/bearer-auth/index.ts', start: 107, end: 109 }],
    note: 'bearerAuth options',
  },
  {
    id: 'he-invalid-rule', kind: 'error',
    query: 'TypeError: Invalid rule: 10.0.0.0/33',
    expected: [
      { path: 'src/middleware/ip-restriction/index.ts', start: 41, end: 49 },
      { path: 'src/middleware/ip-restriction/index.ts', start: 61, end: 63 },
      { path: 'src/middleware/ip-restriction/index.ts', start: 93, end: 95 },
    ],
    note: 'ip-restriction CIDR prefix and rule checks',
  },
  {
    id: 'he-jwt-alg', kind: 'error',
    query: 'Error: JWT auth middleware requires options for "alg"',
    expected: [{ path: 'src/middleware/jwt/jwt.ts', start: 70, end: 72 }],
    note: 'jwt middleware options',
  },
  {
    id: 'he-basic-auth-options', kind: 'error',
    query: 'Error: basic auth middleware requires options for "username and password" or "verifyUser"',
    expected: [{ path: 'src/middleware/basic-auth/index.ts', start: 87, end: 91 }],
    note: 'basicAuth options',
  },
  {
    id: 'he-vary-star', kind: 'error',
    query: 'Error: Middleware vary configuration cannot include "*", as it disallows effective caching.',
    expected: [{ path: 'src/middleware/cache/index.ts', start: 219, end: 223 }],
    note: 'cache middleware vary check',
  },
  {
    id: 'he-context-storage', kind: 'error',
    query: 'Error: Context is not available',
    expected: [{ path: 'src/middleware/context-storage/index.ts', start: 55, end: 57 }],
    note: 'getContext outside contextStorage',
  },
  {
    id: 'he-jwt-expired', kind: 'error',
    query: 'JwtTokenExpired: token (eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjE3MDAwMDAwMDB9.c2lnbmF0dXJl) expired',
    expected: [{ path: 'src/utils/jwt/types.ts', start: 41, end: 46 }, { path: 'src/utils/jwt/jwt.ts', start: 136, end: 139 }],
    note: 'the error class, or verify raising it',
  },
  {
    id: 'he-alg-mismatch', kind: 'error',
    query: 'JwtAlgorithmMismatch: JWT algorithm mismatch: expected "HS256", got "RS256"',
    expected: [
      { path: 'src/utils/jwt/types.ts', start: 20, end: 25 },
      { path: 'src/utils/jwt/jwt.ts', start: 127, end: 129 },
      { path: 'src/utils/jwt/jwt.ts', start: 254, end: 256 },
    ],
    note: 'the error class, or verify / verifyWithJwks raising it',
  },
  {
    id: 'he-symmetric-jwk', kind: 'error',
    query: 'symmetric algorithm "HS256" is not allowed for JWK verification',
    expected: [{ path: 'src/utils/jwt/types.ts', start: 78, end: 83 }, { path: 'src/utils/jwt/jwt.ts', start: 219, end: 221 }],
    note: 'the error class, or verifyWithJwks raising it',
  },
  {
    id: 'he-malformed-json', kind: 'error',
    query: 'HTTPException: Malformed JSON in request body',
    expected: [{ path: 'src/validator/validator.ts', start: 100, end: 102 }],
    note: 'validator json target',
  },
  {
    id: 'he-clone-consumed', kind: 'error',
    query: 'Cannot clone request: body was already consumed and not cached. Please use HonoRequest methods (e.g., req.json(), '
      + 'req.text()) instead of consuming req.raw directly.',
    expected: [{ path: 'src/request.ts', start: 479, end: 482 }],
    note: 'cloneRawRequest',
  },
  {
    id: 'he-gateway-timeout', kind: 'error',
    query: '504 Gateway Timeout',
    expected: [{ path: 'src/middleware/timeout/index.ts', start: 12, end: 14 }],
    note: 'timeout middleware default exception',
  },
  {
    id: 'he-malformed-form', kind: 'error',
    query: 'HTTPException: Malformed FormData request. Unexpected end of multipart data',
    expected: [{ path: 'src/validator/validator.ts', start: 122, end: 125 }],
    note: 'validator form target',
  },
];

const naturals: Draft[] = [
  {
    id: 'hn-cookie-parse', kind: 'natural',
    query: 'how are the cookies of a request header split into names and values?',
    expected: [{ path: 'src/utils/cookie.ts', start: 109, end: 144 }],
    note: 'utils/cookie parse',
  },
  {
    id: 'hn-signed-cookie', kind: 'natural',
    query: 'how is a signed cookie checked against the secret?',
    expected: [{ path: 'src/utils/cookie.ts', start: 51, end: 66 }, { path: 'src/utils/cookie.ts', start: 146, end: 171 }],
    note: 'verifySignature / parseSigned',
  },
  {
    id: 'hn-cookie-serialize', kind: 'natural',
    query: 'how is the set-cookie header value built with max age, domain and same site?',
    expected: [{ path: 'src/utils/cookie.ts', start: 173, end: 259 }],
    note: '_serialize',
  },
  {
    id: 'hn-url-path', kind: 'natural',
    query: 'how does the framework get the path of the incoming URL without the query string?',
    expected: [{ path: 'src/utils/url.ts', start: 106, end: 134 }],
    note: 'getPath',
  },
  {
    id: 'hn-repeated-query', kind: 'natural',
    query: 'how are repeated query string keys collected into a list of values?',
    expected: [{ path: 'src/utils/url.ts', start: 219, end: 300 }],
    note: '_getQueryParam with multiple',
  },
  {
    id: 'hn-form-body', kind: 'natural',
    query: 'where is a multipart form body with uploaded files parsed?',
    expected: [{ path: 'src/utils/body.ts', start: 97, end: 113 }, { path: 'src/utils/body.ts', start: 123, end: 147 }],
    note: 'parseBody / parseFormData',
  },
  {
    id: 'hn-nested-form', kind: 'natural',
    query: 'how do form field names with dots turn into nested objects?',
    expected: [{ path: 'src/utils/body.ts', start: 221, end: 248 }],
    note: 'handleParsingNestedValues',
  },
  {
    id: 'hn-mime-extension', kind: 'natural',
    query: 'how is the content type chosen from a file extension?',
    expected: [{ path: 'src/utils/mime.ts', start: 6, end: 16 }],
    note: 'getMimeType',
  },
  {
    id: 'hn-accept-quality', kind: 'natural',
    query: 'how is an accept header with quality weights parsed and sorted?',
    expected: [{ path: 'src/utils/accept.ts', start: 211, end: 238 }, { path: 'src/utils/accept.ts', start: 240, end: 266 }],
    note: 'parseAccept / parseQuality',
  },
  {
    id: 'hn-basic-credentials', kind: 'natural',
    query: 'how are the user name and password decoded from the authorization header?',
    expected: [{ path: 'src/utils/basic-auth.ts', start: 9, end: 26 }],
    note: 'utils/basic-auth auth',
  },
  {
    id: 'hn-ipv6-expand', kind: 'natural',
    query: 'how is a shortened IPv6 address expanded to all eight groups?',
    expected: [{ path: 'src/utils/ipaddr.ts', start: 13, end: 38 }],
    note: 'expandIPv6',
  },
  {
    id: 'hn-html-escape', kind: 'natural',
    query: 'how are special HTML characters escaped when rendering text?',
    expected: [{ path: 'src/utils/html.ts', start: 90, end: 127 }],
    note: 'escapeToBuffer',
  },
  {
    id: 'hn-middleware-order', kind: 'natural',
    query: 'how does the middleware chain call each handler in order and wait for the next one?',
    expected: [{ path: 'src/compose.ts', start: 15, end: 73 }],
    note: 'compose',
  },
  {
    id: 'hn-sse-format', kind: 'natural',
    query: 'how is a server-sent event formatted and written to the stream?',
    expected: [{ path: 'src/helper/streaming/sse.ts', start: 18, end: 45 }],
    note: 'SSEStreamingApi.writeSSE',
  },
  {
    id: 'hn-token-verify', kind: 'natural',
    query: 'how is a token signature verified and its expiry time checked?',
    expected: [{ path: 'src/utils/jwt/jwt.ts', start: 96, end: 188 }],
    note: 'jwt verify',
  },
  {
    id: 'hn-remote-keys', kind: 'natural',
    query: 'how are the signing keys downloaded from a remote key set URL?',
    expected: [{ path: 'src/utils/jwt/jwt.ts', start: 197, end: 262 }],
    note: 'verifyWithJwks',
  },
  {
    id: 'hn-not-modified', kind: 'natural',
    query: 'when does the server answer 304 not modified for a matching entity tag?',
    expected: [{ path: 'src/middleware/etag/index.ts', start: 32, end: 37 }, { path: 'src/middleware/etag/index.ts', start: 80, end: 134 }],
    note: 'etagMatches / etag middleware',
  },
  {
    id: 'hn-compression-choice', kind: 'natural',
    query: 'how is the compression algorithm picked from what the client accepts?',
    expected: [{ path: 'src/middleware/compress/index.ts', start: 24, end: 44 }],
    note: 'selectEncoding',
  },
  {
    id: 'hn-upload-too-large', kind: 'natural',
    query: 'how are uploads that are too large rejected when the request has no content length?',
    expected: [{ path: 'src/middleware/body-limit/index.ts', start: 50, end: 111 }],
    note: 'bodyLimit streaming count',
  },
  {
    id: 'hn-cross-site-forms', kind: 'natural',
    query: 'how are cross-site form submissions blocked?',
    expected: [{ path: 'src/middleware/csrf/index.ts', start: 94, end: 151 }],
    note: 'csrf middleware',
  },
  {
    id: 'hn-csp-nonce', kind: 'natural',
    query: 'how is the random nonce for the content security policy generated?',
    expected: [{ path: 'src/middleware/secure-headers/secure-headers.ts', start: 131, end: 145 }],
    note: 'generateNonce / NONCE',
  },
  {
    id: 'hn-default-security-headers', kind: 'natural',
    query: 'which security headers are sent by default and with what values?',
    expected: [{ path: 'src/middleware/secure-headers/secure-headers.ts', start: 94, end: 124 }],
    note: 'HEADERS_MAP / DEFAULT_OPTIONS',
  },
  {
    id: 'hn-request-id', kind: 'natural',
    query: 'how does every incoming request get its own unique id?',
    expected: [{ path: 'src/middleware/request-id/request-id.ts', start: 41, end: 59 }],
    note: 'requestId middleware',
  },
  {
    id: 'hn-log-elapsed', kind: 'natural',
    query: 'how does the request logger print the elapsed time in ms or seconds?',
    expected: [{ path: 'src/middleware/logger/index.ts', start: 15, end: 26 }],
    note: 'humanize / time',
  },
  {
    id: 'hn-trailing-slash', kind: 'natural',
    query: 'how are URLs ending with a slash redirected to the version without it?',
    expected: [{ path: 'src/middleware/trailing-slash/index.ts', start: 44, end: 74 }],
    note: 'trimTrailingSlash',
  },
  {
    id: 'hn-form-method', kind: 'natural',
    query: 'how can an HTML form send a DELETE or PUT request through a hidden field?',
    expected: [{ path: 'src/middleware/method-override/index.ts', start: 60, end: 138 }],
    note: 'methodOverride',
  },
  {
    id: 'hn-static-escape', kind: 'natural',
    query: 'how does serving static files stop paths that try to climb out of the root folder?',
    expected: [{ path: 'src/middleware/serve-static/index.ts', start: 64, end: 72 }],
    note: 'serveStatic dot-segment check',
  },
  {
    id: 'hn-ip-ranges', kind: 'natural',
    query: 'how are client addresses matched against allowed and denied network ranges?',
    expected: [
      { path: 'src/middleware/ip-restriction/index.ts', start: 51, end: 167 },
      { path: 'src/middleware/ip-restriction/index.ts', start: 218, end: 279 },
    ],
    note: 'buildMatcher / ipRestriction',
  },
  {
    id: 'hn-preferred-language', kind: 'natural',
    query: "how is the user's preferred language detected from the request?",
    expected: [
      { path: 'src/middleware/language/language.ts', start: 238, end: 267 },
      { path: 'src/middleware/language/language.ts', start: 153, end: 171 },
    ],
    note: 'detectLanguage / detectFromHeader',
  },
  {
    id: 'hn-preflight', kind: 'natural',
    query: 'how is the preflight OPTIONS request answered for cross-origin calls?',
    expected: [{ path: 'src/middleware/cors/index.ts', start: 118, end: 154 }],
    note: 'cors OPTIONS branch',
  },
  {
    id: 'hn-no-route', kind: 'natural',
    query: 'what does the app send back when no route matches the request?',
    expected: [{ path: 'src/hono-base.ts', start: 31, end: 33 }],
    note: 'default notFoundHandler',
  },
  {
    id: 'hn-handler-throws', kind: 'natural',
    query: 'what response is sent by default when a handler throws?',
    expected: [{ path: 'src/hono-base.ts', start: 35, end: 42 }],
    note: 'default errorHandler',
  },
  {
    id: 'hn-sub-app', kind: 'natural',
    query: 'how can another application be attached under a sub path?',
    expected: [{ path: 'src/hono-base.ts', start: 329, end: 384 }, { path: 'src/hono-base.ts', start: 209, end: 233 }],
    note: 'mount / route',
  },
  {
    id: 'hn-redirect', kind: 'natural',
    query: 'how is a redirect response built with its location header?',
    expected: [{ path: 'src/context.ts', start: 767, end: 779 }],
    note: 'Context.redirect',
  },
  {
    id: 'hn-tree-insert', kind: 'natural',
    query: 'how does the tree based router store a new route segment by segment?',
    expected: [{ path: 'src/router/trie-router/node.ts', start: 28, end: 62 }],
    note: 'trie-router Node.insert',
  },
  {
    id: 'hn-lambda-request', kind: 'natural',
    query: 'how does an API gateway lambda event become a standard fetch request?',
    expected: [
      { path: 'src/adapter/aws-lambda/handler.ts', start: 318, end: 342 },
      { path: 'src/adapter/aws-lambda/handler.ts', start: 625, end: 637 },
    ],
    note: 'EventProcessor.createRequest / getProcessor',
  },
  {
    id: 'hn-state-hook', kind: 'natural',
    query: 'how does the state hook keep its value between renders of a component?',
    expected: [{ path: 'src/jsx/hooks/index.ts', start: 182, end: 243 }],
    note: 'useState',
  },
];

/** Every third query of each kind, counting from the third, is held out. */
function withSplits(drafts: Draft[]): QualityQuery[] {
  return drafts.map((draft, index) => ({ ...draft, split: index % 3 === 2 ? 'held-out' : 'tune' }));
}

export const honoQueries: QualityQuery[] = [...withSplits(errors), ...withSplits(naturals)];
