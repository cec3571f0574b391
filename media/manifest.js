// @ts-check
// The manifest webview. It renders the last context manifest as a sortable, filterable table.
// Messages follow src/vscode/manifestProtocol.ts: it sends `ready` first, then `open` on a link.
(function () {
  const vscode = acquireVsCodeApi();
  const app = /** @type {HTMLElement} */ (document.getElementById('app'));
  /** @type {{ key: string, descending: boolean }} */
  let sort = { key: 'score', descending: true };
  let filter = 'all';
  let text = '';
  /** @type {any} */
  let last = null;

  /** @param {string} tag @param {Record<string, string>} [attributes] @param {(Node|string)[]} [children] */
  function element(tag, attributes = {}, children = []) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    for (const child of children) node.append(child);
    return node;
  }

  /** @param {string} template @param {...(string|number)} values */
  function format(template, ...values) {
    return template.replace(/\{(\d+)\}/g, (_match, index) => String(values[Number(index)]));
  }

  // Re-rendering replaces every control; keep the keyboard focus on the control that had it.
  function render() {
    const focused = /** @type {HTMLElement | null} */ (document.activeElement);
    const selector = focused?.dataset.filter
      ? `[data-filter="${focused.dataset.filter}"]`
      : focused?.dataset.sort
        ? `[data-sort="${focused.dataset.sort}"]`
        : null;
    draw();
    if (selector) /** @type {HTMLElement | null} */ (app.querySelector(selector))?.focus();
  }

  function draw() {
    const message = last;
    app.replaceChildren();
    if (!message) return;
    const strings = message.strings;
    app.append(element('h1', {}, [strings.title]));
    if (!message.trusted) {
      app.append(element('p', { class: 'notice', role: 'status' }, [strings.untrusted]));
      return;
    }
    for (const health of message.health) {
      app.append(
        element('p', { class: 'health' }, [
          `${strings.health}: ${health.status} — ${health.files} files, ${health.snippets} snippets, ${health.symbols} symbols, ${health.staleSnippets} stale, ${health.excluded} excluded`,
        ]),
      );
    }
    const manifest = message.manifest;
    if (!manifest) {
      app.append(element('p', { class: 'notice' }, [strings.noManifest]));
      return;
    }
    const included = manifest.entries.filter((/** @type {any} */ entry) => entry.included).length;
    app.append(element('p', { class: 'query' }, [`${strings.query}: `, element('code', {}, [manifest.query])]));
    if (manifest.rewrite) {
      app.append(
        element('p', { class: 'rewrite' }, [
          format(strings.rewrittenFrom, manifest.rewrite.model),
          ' ',
          element('code', {}, [manifest.rewrite.request]),
        ]),
      );
    }
    const revision = manifest.revision;
    if (revision) {
      app.append(
        element('p', { class: 'revision' }, [
          `${strings.revision}: ${revision.branch ?? '—'} @ ${(revision.head ?? '—').slice(0, 12)}${revision.dirty ? ' (dirty)' : ''} · ${revision.indexedAt ?? ''}`,
        ]),
      );
    }
    app.append(
      element('p', { class: 'summary', id: 'summary' }, [
        format(strings.summary, included, manifest.entries.length - included, manifest.usedTokens, manifest.budgetTokens),
      ]),
    );
    if (manifest.note) app.append(element('p', { class: 'notice' }, [manifest.note]));

    const controls = element('div', { class: 'controls', role: 'toolbar' });
    for (const [value, label] of [
      ['all', strings.all],
      ['included', strings.included],
      ['excluded', strings.excluded],
    ]) {
      const button = element('button', { type: 'button', 'data-filter': value, 'aria-pressed': String(filter === value) }, [label]);
      button.addEventListener('click', () => {
        filter = value;
        render();
      });
      controls.append(button);
    }
    const search = /** @type {HTMLInputElement} */ (
      element('input', { type: 'search', placeholder: strings.filter, 'aria-label': strings.filter, value: text, id: 'filter-text' })
    );
    search.addEventListener('input', () => {
      text = search.value;
      renderRows(tbody, manifest, strings, message.highlight);
    });
    controls.append(search);
    app.append(controls);

    const columns = [
      ['included', strings.status],
      ['reason', strings.reason],
      ['score', strings.score],
      ['tokens', strings.tokens],
      ['path', strings.location],
      ['kind', strings.kind],
      ['symbol', strings.symbol],
    ];
    const headRow = element('tr');
    headRow.append(element('th', { scope: 'col' }, [strings.actions]));
    for (const [key, label] of columns) {
      const direction = sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none';
      const button = element('button', { type: 'button', class: 'sort', 'data-sort': key }, [
        label,
        sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : '',
      ]);
      button.addEventListener('click', () => {
        sort = { key, descending: sort.key === key ? !sort.descending : key === 'score' || key === 'tokens' };
        render();
      });
      headRow.append(element('th', { scope: 'col', 'aria-sort': direction }, [button]));
    }
    const tbody = element('tbody');
    app.append(element('table', { id: 'manifest-table' }, [element('thead', {}, [headRow]), tbody]));
    renderRows(tbody, manifest, strings, message.highlight);
  }

  /** @param {HTMLElement} tbody @param {any} manifest @param {Record<string,string>} strings @param {string|undefined} highlight */
  function renderRows(tbody, manifest, strings, highlight) {
    tbody.replaceChildren();
    const needle = text.trim().toLowerCase();
    const rows = manifest.entries
      .filter((/** @type {any} */ entry) => filter === 'all' || (filter === 'included') === entry.included)
      .filter(
        (/** @type {any} */ entry) =>
          !needle || `${entry.path} ${entry.reason} ${entry.symbol ?? ''} ${entry.kind}`.toLowerCase().includes(needle),
      )
      .sort((/** @type {any} */ a, /** @type {any} */ b) => {
        const left = a[sort.key] ?? '';
        const right = b[sort.key] ?? '';
        const order = typeof left === 'number' && typeof right === 'number' ? left - right : String(left).localeCompare(String(right));
        return (sort.descending ? -order : order) || String(a.path).localeCompare(String(b.path)) || a.startLine - b.startLine;
      });
    for (const entry of rows) {
      const link = element('a', { href: '#', 'data-path': entry.path }, [`${entry.path}:${entry.startLine}-${entry.endLine}`]);
      link.addEventListener('click', (event) => {
        event.preventDefault();
        vscode.postMessage({
          type: 'open',
          path: entry.path,
          startLine: entry.startLine,
          endLine: entry.endLine,
          root: manifest.revision?.root ?? '',
        });
      });
      const row = element(
        'tr',
        {
          class: `${entry.included ? 'included' : 'excluded'}${highlight && entry.snippetId === highlight ? ' highlight' : ''}`,
          'data-snippet': entry.snippetId,
        },
        [
          element('td', { class: 'actions' }, actionsOf(entry, manifest, strings)),
          element('td', {}, [entry.included ? strings.yes : strings.no]),
          element('td', {}, [entry.reason + (entry.matchedBy ? ` (${entry.matchedBy})` : '')]),
          element('td', { class: 'number' }, [String(entry.score)]),
          element('td', { class: 'number' }, [String(entry.tokens)]),
          element('td', {}, [link]),
          element('td', {}, [entry.kind]),
          element('td', {}, [entry.symbol ?? '']),
        ],
      );
      tbody.append(row);
      if (highlight && entry.snippetId === highlight) row.scrollIntoView({ block: 'center' });
    }
  }

  /**
   * Pin and useful / not-useful buttons of one entry. Only source candidates get them: a pin is
   * pinned already, and a memory item is the user's own claim, not a ranked candidate.
   * @param {any} entry @param {any} manifest @param {Record<string,string>} strings
   */
  function actionsOf(entry, manifest, strings) {
    if (entry.kind === 'memory' || String(entry.kind).startsWith('pin-') || !entry.path) return [];
    const root = manifest.revision?.root ?? '';
    /** @param {string} label @param {string} name @param {any} message */
    const button = (label, name, message) => {
      const node = element('button', { type: 'button', class: `action ${name}`, title: label, 'aria-label': label }, [label]);
      node.addEventListener('click', () => vscode.postMessage(message));
      return node;
    };
    return [
      button(strings.pin, 'pin', {
        type: 'pin',
        root,
        path: entry.path,
        startLine: entry.startLine,
        endLine: entry.endLine,
        symbol: entry.symbol,
      }),
      button(strings.useful, 'useful', { type: 'label', root, query: manifest.query, snippetId: entry.snippetId, useful: true }),
      button(strings.notUseful, 'not-useful', { type: 'label', root, query: manifest.query, snippetId: entry.snippetId, useful: false }),
    ];
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (message && message.type === 'manifest') {
      last = message;
      render();
    }
  });
  vscode.postMessage({ type: 'ready' });
})();
