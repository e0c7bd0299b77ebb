// Triggers (#/triggers): every app's triggers, filtered, in pages, each enabled, disabled, held,
// released, emptied or deleted; the apps on hold; a new trigger.

import { api, query } from '../api.js';
import { $, h, shortId } from '../dom.js';
import { attempt, notice, confirmDialog, isCurrent } from '../shell.js';
import { KINDS, kindSelect, hashParams, pageButtons } from '../parts.js';

const TARGET_FIELD = { webhook: 'url', handler: 'name', jms: 'destination', kafka: 'topic' };

export async function triggersView(main, view) {
  const params = hashParams();
  const filter = { appId: params.get('appId') || '', sourceKind: params.get('sourceKind') || '' };
  const cursors = [null];
  const list = h('div#trigger-list');
  const pager = h('div.pager');
  const filterForm = h('form.filters', { 'aria-label': 'Filter triggers' },
    h('label', {}, 'App id', h('input#tr-app', { value: filter.appId, placeholder: 'any app', size: 38 })),
    h('label', {}, 'Source kind', kindSelect('tr-kind', filter.sourceKind)),
    h('button.primary', { type: 'submit' }, 'Apply'),
    h('button', { type: 'button', onclick: () => { location.hash = '#/triggers'; } }, 'Clear'));
  filterForm.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/triggers${query({ appId: $('tr-app').value.trim(), sourceKind: $('tr-kind').value })}`;
  });
  main.replaceChildren(
    h('section.card', {}, h('div.card-head', {}, h('h2', {}, 'Triggers')), filterForm, list, pager),
    appHoldsCard(view),
    createTriggerCard(() => { cursors.length = 1; return load(); }));

  async function load() {
    const page = await api.get(`admin/triggers${query({ ...filter, limit: 25, cursor: cursors[cursors.length - 1] })}`);
    if (!isCurrent(view)) {
      return;
    }
    list.replaceChildren(page.items.length ? triggerTable(page.items, load) : h('p.empty', {}, 'No triggers.'));
    pager.replaceChildren(...pageButtons(cursors, page.nextCursor, load));
  }
  await load();
}

function triggerTable(items, reload) {
  const definition = (t, enabled) => {
    const body = { ...t, enabled };
    ['id', 'appId', 'createdAt', 'updatedAt', 'secret', 'nextFireAt', 'lastFiredAt', 'previousSecretExpiresAt', 'held']
      .forEach(k => delete body[k]);
    return body;
  };
  const hold = async (t) => attempt(t.held ? 'Release trigger' : 'Hold trigger', async () => {
    await api.post(`apps/${t.appId}/triggers/${t.id}/${t.held ? 'release' : 'hold'}`);
    notice(t.held ? `Trigger ${shortId(t.id)} released: its held rows come due in their order.`
      : `Trigger ${shortId(t.id)} on hold: its rows wait, unclaimed.`);
    await reload();
  });
  const discard = async (t) => {
    if (!await confirmDialog('Discard the pending rows?', `Every row of trigger ${shortId(t.id)} still in the outbox (held, pending or scheduled) is cancelled and never delivered; a row being delivered right now finishes its attempt.`, 'Discard pending')) {
      return;
    }
    await attempt('Discard pending', async () => {
      const done = await api.post('admin/outbox/cancel', { triggerId: t.id });
      notice(`${done.cancelled} row(s) cancelled${done.cancelRequested ? `, ${done.cancelRequested} in flight marked` : ''}${done.more ? '; more remain: discard again' : ''}.`);
      await reload();
    });
  };
  const toggle = async (t) => attempt(t.enabled ? 'Disable trigger' : 'Enable trigger', async () => {
    await api.put(`apps/${t.appId}/triggers/${t.id}`, definition(t, !t.enabled));
    notice(`Trigger ${shortId(t.id)} ${t.enabled ? 'disabled' : 'enabled'}.`);
    await reload();
  });
  const remove = async (t) => {
    if (!await confirmDialog('Delete this trigger?', `Events of kind ${t.sourceKind} for app ${t.appId} no longer go to ${t.target[TARGET_FIELD[t.target.type]]}.`, 'Delete')) {
      return;
    }
    await attempt('Delete trigger', async () => {
      await api.del(`apps/${t.appId}/triggers/${t.id}`);
      notice(`Trigger ${shortId(t.id)} deleted.`);
      await reload();
    });
  };
  return h('table#triggers-table', {},
    h('thead', {}, h('tr', {}, ['Trigger', 'App', 'Kind', 'Target', 'Max attempts', 'Last hour', 'State', ''].map(x => h(`th${x === 'Max attempts' ? '.num' : ''}`, { scope: 'col' }, x)))),
    h('tbody', {}, items.map(t => h('tr', { 'data-trigger': t.id },
      h('td.mono', { title: t.id }, shortId(t.id)),
      h('td.mono', { title: t.appId }, shortId(t.appId)),
      h('td', {}, h('span.kind', {}, t.sourceKind)),
      h('td.target', {}, h('span.badge', {}, t.target.type), ' ', t.target[TARGET_FIELD[t.target.type]] || '',
        t.target.key ? ` (key: ${t.target.key})` : ''),
      h('td.num', {}, t.maxAttempts ?? 'default'),
      h('td.last-hour', {}, lastHour(t.lastHour)),
      h('td', {}, h(`span.badge.${t.enabled ? 'good' : 'muted'}`, {}, t.enabled ? 'enabled' : 'disabled'),
        t.circuit && t.circuit !== 'closed' ? [' ', h('span.badge.bad', { title: 'This node sends nothing to the origin until a probe reaches it (each node keeps its own circuit)' }, `circuit ${t.circuit.replace('_', '-')}`)] : '',
        t.held ? [' ', h('span.badge.warn', {}, 'held')] : '',
        t.onDeadLetter === 'block' ? [' ', h('span.badge', { title: 'An ordered lane whose head dead-letters waits until skipped or retried (Dead letters: Stuck lanes)' }, 'on dead letter: block')] : ''),
      h('td.actions', {},
        h('button.small', { type: 'button', onclick: () => toggle(t) }, t.enabled ? 'Disable' : 'Enable'),
        h('button.small.hold', { type: 'button', onclick: () => hold(t) }, t.held ? 'Release' : 'Hold'),
        h('button.small.discard', { type: 'button', onclick: () => discard(t) }, 'Discard pending'),
        h('button.small.danger-outline', { type: 'button', onclick: () => remove(t) }, 'Delete'))))));
}

// A trigger's last hour (GET /admin/triggers): delivered and dead rows, and how long its delivering attempts took.
function lastHour(hour) {
  if (!hour) {
    return '';
  }
  const took = hour.p50Ms == null ? '' : ` · p50 ${hour.p50Ms} ms, p99 ${hour.p99Ms} ms`;
  return `${hour.delivered} delivered, ${hour.dead} dead${took}`;
}

// Apps on hold: none of their rows is claimed until released (POST /admin/apps/{appId}/hold, …/release).
function appHoldsCard(view) {
  const list = h('div#app-holds');
  const form = h('form.filters', { 'aria-label': 'Hold an app' },
    h('label', {}, 'App id', h('input#hold-app', { required: true, placeholder: 'app id', size: 38 })),
    h('button.primary', { type: 'submit' }, 'Hold app'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    attempt('Hold app', async () => {
      const app = $('hold-app').value.trim();
      await api.post(`admin/apps/${encodeURIComponent(app)}/hold`);
      notice(`App ${shortId(app)} on hold: its rows wait, unclaimed.`);
      await load();
    });
  });
  const release = (app) => attempt('Release app', async () => {
    const done = await api.post(`admin/apps/${app}/release`);
    notice(`App ${shortId(app)} released: ${done.releasedRows} held row(s) come due in their order.`);
    await load();
  });
  async function load() {
    const holds = await api.get('admin/holds');
    if (!isCurrent(view)) {
      return;
    }
    list.replaceChildren(holds.apps.length
      ? h('table#app-holds-table', {},
        h('thead', {}, h('tr', {}, ['App', 'Since', 'By', ''].map(x => h('th', { scope: 'col' }, x)))),
        h('tbody', {}, holds.apps.map(a => h('tr', {},
          h('td.mono', { title: a.appId }, a.appId),
          h('td', {}, a.heldAt),
          h('td', {}, a.heldBy ?? ''),
          h('td.actions', {}, h('button.small', { type: 'button', onclick: () => release(a.appId) }, 'Release'))))))
      : h('p.empty', {}, 'No app is on hold.'));
  }
  attempt('Loading holds', load);
  return h('section.card', {}, h('div.card-head', {}, h('h2', {}, 'Apps on hold'),
    h('span.muted', {}, 'Held rows stay, spend no attempt and never dead-letter; release delivers them in their order.')), form, list);
}

function createTriggerCard(reload) {
  const targetLabel = h('span', {}, 'Webhook URL');
  const type = h('select#new-type', { required: true },
    h('option', { value: 'webhook' }, 'webhook'), h('option', { value: 'handler' }, 'handler'), h('option', { value: 'jms' }, 'jms'),
    h('option', { value: 'kafka' }, 'kafka'));
  const target = h('input#new-target', { required: true, size: 40, placeholder: 'https://example.com/hook' });
  type.addEventListener('change', () => {
    targetLabel.textContent = { webhook: 'Webhook URL', handler: 'Handler name', jms: 'JMS destination', kafka: 'Kafka topic' }[type.value];
    target.placeholder = { webhook: 'https://example.com/hook', handler: 'CDI bean name', jms: 'queue or topic', kafka: 'topic name' }[type.value];
  });
  const form = h('form.grid-form#new-trigger', { 'aria-label': 'New trigger' },
    h('label', {}, 'App id', h('input#new-app', { required: true, size: 38, placeholder: 'UUID' })),
    h('label', {}, 'Source kind', h('select#new-kind', { required: true }, KINDS.map(k => h('option', { value: k }, k)))),
    h('label', {}, 'Target type', type),
    h('label', {}, targetLabel, target),
    h('label', {}, 'Max attempts', h('input#new-max', { type: 'number', min: 1, max: 1000, placeholder: 'default' })),
    h('label.check', {}, h('input#new-enabled', { type: 'checkbox', checked: true }), ' Enabled'),
    h('div.actions', {}, h('button.primary', { type: 'submit' }, 'Create trigger')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {
      sourceKind: $('new-kind').value,
      target: { type: type.value, [TARGET_FIELD[type.value]]: target.value.trim() },
      enabled: $('new-enabled').checked,
    };
    if ($('new-max').value) {
      body.maxAttempts = Number($('new-max').value);
    }
    await attempt('Create trigger', async () => {
      const t = await api.post(`apps/${encodeURIComponent($('new-app').value.trim())}/triggers`, body);
      notice(t.secret ? `Trigger ${shortId(t.id)} created. Its webhook signing secret, shown only now: ${t.secret}`
        : `Trigger ${shortId(t.id)} created.`);
      target.value = '';
      await reload();
    });
  });
  return h('section.card', {}, h('h2', {}, 'New trigger'), form);
}
