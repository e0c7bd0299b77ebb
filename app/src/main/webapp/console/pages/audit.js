// Audit (#/audit): every admin action, newest first, in pages.

import { api, query } from '../api.js';
import { h } from '../dom.js';
import { isCurrent } from '../shell.js';
import { auditTable, pageButtons } from '../parts.js';

export async function auditView(main, view) {
  const cursors = [null];
  const list = h('div#audit-list');
  const pager = h('div.pager');
  main.replaceChildren(h('section.card', {}, h('div.card-head', {}, h('h2', {}, 'Audit'),
    h('span.muted', {}, 'Every admin action: who, when, what, on which rows or triggers.')), list, pager));
  async function load() {
    const page = await api.get(`admin/audit${query({ limit: 50, cursor: cursors[cursors.length - 1] })}`);
    if (!isCurrent(view)) {
      return;
    }
    list.replaceChildren(page.items.length ? auditTable(page.items) : h('p.empty', {}, 'No admin action yet.'));
    pager.replaceChildren(...pageButtons(cursors, page.nextCursor, load));
  }
  view.refresh = async () => {
    if (cursors.length === 1) {
      await load();
    }
  };
  await load();
}
