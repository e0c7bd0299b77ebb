// Small DOM helpers: every text from the API goes in through textContent, never as HTML.

export const $ = (id) => document.getElementById(id);

/** h('tag.class#id', {attr: value, onclick: fn}, child, ...) */
export function h(spec, attrs = {}, ...children) {
  const [tagAndClasses, id] = spec.split('#');
  const [tag, ...classes] = tagAndClasses.split('.');
  const node = document.createElement(tag || 'div');
  if (classes.length) {
    node.className = classes.join(' ');
  }
  if (id) {
    node.id = id;
  }
  Object.entries(attrs || {}).forEach(([k, v]) => {
    if (v === undefined || v === null || v === false) {
      return;
    }
    if (k.startsWith('on')) {
      node.addEventListener(k.slice(2), v);
    } else if (k === 'dataset') {
      Object.assign(node.dataset, v);
    } else {
      node.setAttribute(k, v === true ? '' : v);
    }
  });
  children.flat(Infinity).forEach(c => {
    if (c !== undefined && c !== null && c !== false) {
      node.append(c instanceof Node ? c : String(c));
    }
  });
  return node;
}

export function ago(iso) {
  if (!iso) {
    return '—';
  }
  const seconds = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (seconds < 60) {
    return `${Math.max(0, seconds)} s ago`;
  }
  if (seconds < 3600) {
    return `${Math.round(seconds / 60)} min ago`;
  }
  if (seconds < 86400) {
    return `${Math.round(seconds / 3600)} h ago`;
  }
  return `${Math.round(seconds / 86400)} d ago`;
}

export function time(iso) {
  return iso ? new Date(iso).toLocaleString() : '—';
}

export function duration(seconds) {
  if (seconds < 1) {
    return `${Math.round(seconds * 1000)} ms`;
  }
  if (seconds < 120) {
    return `${seconds.toFixed(1)} s`;
  }
  if (seconds < 7200) {
    return `${Math.round(seconds / 60)} min`;
  }
  return `${(seconds / 3600).toFixed(1)} h`;
}

export function shortId(id) {
  return id ? id.slice(0, 8) : '—';
}

export function pretty(json) {
  return JSON.stringify(json, null, 2);
}
