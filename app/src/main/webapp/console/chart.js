// The activity chart: rows delivered and dead-lettered per minute as stacked bars, failed attempts
// as a line, drawn as inline SVG (no library, nothing fetched at run time).

const NS = 'http://www.w3.org/2000/svg';

function el(name, attrs = {}, text) {
  const node = document.createElementNS(NS, name);
  Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function niceMax(value) {
  if (value <= 4) {
    return 4;
  }
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find(s => s * power >= value / 4) * power;
  return Math.ceil(value / step) * step;
}

function hhmm(iso) {
  const d = new Date(iso);
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

/** Draws items [{minute, delivered, dead, failedAttempts}] into the container. */
export function drawActivity(container, items) {
  const width = 900;
  const height = 200;
  const pad = { left: 48, right: 12, top: 12, bottom: 28 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const max = niceMax(Math.max(1, ...items.map(i => Math.max(i.delivered + i.dead, i.failedAttempts))));
  const y = v => pad.top + plotH - (v / max) * plotH;
  const slot = plotW / Math.max(1, items.length);
  const total = items.reduce((a, i) => ({ d: a.d + i.delivered, x: a.x + i.dead, f: a.f + i.failedAttempts }), { d: 0, x: 0, f: 0 });

  const svg = el('svg', {
    viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img',
    'aria-label': `Last ${items.length} minutes: ${total.d} delivered, ${total.x} dead-lettered, ${total.f} failed attempts`,
  });
  for (let g = 0; g <= 4; g++) {
    const v = (max / 4) * g;
    svg.append(el('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'grid' }));
    svg.append(el('text', { x: pad.left - 6, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, Math.round(v).toLocaleString()));
  }
  items.forEach((item, i) => {
    const x = pad.left + i * slot + slot * 0.15;
    const w = Math.max(1, slot * 0.7);
    const group = el('g', { class: 'bar' });
    group.append(el('title', {}, `${hhmm(item.minute)}: ${item.delivered} delivered, ${item.dead} dead, ${item.failedAttempts} failed attempts`));
    group.append(el('rect', { x, width: w, y: y(item.delivered), height: Math.max(0, y(0) - y(item.delivered)), class: 'delivered' }));
    group.append(el('rect', { x, width: w, y: y(item.delivered + item.dead), height: Math.max(0, y(item.delivered) - y(item.delivered + item.dead)), class: 'dead' }));
    group.append(el('rect', { x: pad.left + i * slot, width: slot, y: pad.top, height: plotH, class: 'hover' }));
    svg.append(group);
    if (i % 15 === 0 || i === items.length - 1) {
      const anchor = i === 0 ? 'start' : (i === items.length - 1 ? 'end' : 'middle');
      svg.append(el('text', { x: pad.left + i * slot + slot / 2, y: height - 8, class: 'axis', 'text-anchor': anchor }, hhmm(item.minute)));
    }
  });
  const points = items.map((item, i) => `${pad.left + i * slot + slot / 2},${y(item.failedAttempts)}`).join(' ');
  svg.append(el('polyline', { points, class: 'failed' }));

  const legend = document.createElement('div');
  legend.className = 'legend';
  legend.innerHTML = `
    <span><i class="swatch delivered"></i>Delivered <b>${total.d.toLocaleString()}</b></span>
    <span><i class="swatch dead"></i>Dead-lettered <b>${total.x.toLocaleString()}</b></span>
    <span><i class="swatch failed"></i>Failed attempts <b>${total.f.toLocaleString()}</b></span>`;
  container.replaceChildren(svg, legend);
}
