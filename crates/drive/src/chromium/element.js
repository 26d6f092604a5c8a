// The page side of `element.rs`: runs in retrace's isolated world (see `world.rs`), called as
// `(THIS)(op, arg)` with op "at" ({x, y}), "focused" (null), "find" ({role, name}) or "node"
// ({x, y} or null). Returns an element description (the fields of `ElementInfo`), null, a list
// of them, or (for "node") the element itself.
// Coordinates are CSS pixels of the top-level viewport throughout.
(op, arg) => {
  const MAX_TEXT = 200;
  const MAX_FOUND = 50;
  const MAX_DEPTH = 32;
  const ACTIONABLE_ROLES = new Set([
    'button', 'checkbox', 'combobox', 'gridcell', 'link', 'listbox', 'menu', 'menubar',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup',
    'scrollbar', 'searchbox', 'slider', 'spinbutton', 'switch', 'tab', 'tablist', 'textbox',
    'tree', 'treegrid', 'treeitem', 'grid',
  ]);
  const NAME_FROM_CONTENT = new Set([
    'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab',
    'tooltip', 'treeitem',
  ]);
  const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'treeitem']);
  const SELECTABLE = new Set(['option', 'tab', 'row', 'gridcell', 'treeitem', 'columnheader', 'rowheader']);
  const NOT_TEXT_INPUTS = new Set(['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'file', 'hidden', 'range', 'color']);
  const VALUELESS_INPUTS = new Set(['button', 'submit', 'reset', 'image', 'checkbox', 'radio', 'file', 'hidden']);

  const norm = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
  const clip = (s) => {
    const chars = Array.from(s);
    return chars.length > MAX_TEXT ? chars.slice(0, MAX_TEXT).join('') : s;
  };
  const styleOf = (el) => el.ownerDocument.defaultView.getComputedStyle(el);
  const isTextInput = (el) => el.localName === 'input' && !NOT_TEXT_INPUTS.has(el.type);

  // The parent in the composed tree: the parent element, a shadow root's host, or the iframe
  // holding a document.
  const composedParent = (node) => {
    if (node.parentElement) return node.parentElement;
    const parent = node.parentNode;
    if (parent && parent.nodeType === 11 && parent.host) return parent.host;
    if (parent && parent.nodeType === 9) {
      const view = parent.defaultView;
      try { return (view && view.frameElement) || null; } catch (e) { return null; }
    }
    return null;
  };
  const composedContains = (ancestor, node) => {
    for (let n = node, i = 0; n && i < 1000; n = composedParent(n), i++) if (n === ancestor) return true;
    return false;
  };

  // Where a document's viewport sits in the top-level viewport.
  const offsetOf = (doc) => {
    let x = 0, y = 0;
    for (let view = doc.defaultView, i = 0; view && i < MAX_DEPTH; i++) {
      let frame = null;
      try { frame = view.frameElement; } catch (e) { frame = null; }
      if (!frame) break;
      const r = frame.getBoundingClientRect();
      const cs = styleOf(frame);
      x += r.left + frame.clientLeft + (parseFloat(cs.paddingLeft) || 0);
      y += r.top + frame.clientTop + (parseFloat(cs.paddingTop) || 0);
      view = frame.ownerDocument.defaultView;
    }
    return {x, y};
  };
  const boxOf = (el) => {
    const r = el.getBoundingClientRect();
    const o = offsetOf(el.ownerDocument);
    return {x: r.x + o.x, y: r.y + o.y, width: r.width, height: r.height};
  };

  // The innermost element at (x, y), through open shadow roots and same-origin iframes.
  const deepHit = (x, y) => {
    let root = document, hit = null;
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const o = offsetOf(root);
      let el = root.elementFromPoint(x - o.x, y - o.y);
      if (!el) break;
      for (let i = 0; el.shadowRoot && i < MAX_DEPTH; i++) {
        const inner = el.shadowRoot.elementFromPoint(x - o.x, y - o.y);
        if (!inner || inner === el) break;
        el = inner;
      }
      hit = el;
      let inner = null;
      if (el.localName === 'iframe' || el.localName === 'frame') {
        try { inner = el.contentDocument; } catch (e) { inner = null; }
      }
      if (!inner) break;
      root = inner;
    }
    return hit;
  };

  const explicitRole = (el) => norm(el.getAttribute('role')).toLowerCase().split(' ')[0] || null;
  const implicitRole = (el) => {
    const tag = el.localName;
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'button': case 'summary': return 'button';
      case 'input': {
        const t = el.type;
        if (t === 'button' || t === 'submit' || t === 'reset' || t === 'image' || t === 'file') return 'button';
        if (t === 'checkbox') return el.hasAttribute('switch') ? 'switch' : 'checkbox';
        if (t === 'radio') return 'radio';
        if (t === 'range') return 'slider';
        if (t === 'number') return 'spinbutton';
        if (t === 'hidden') return 'none';
        if (el.hasAttribute('list')) return 'combobox';
        if (t === 'search') return 'searchbox';
        return 'textbox';
      }
      case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'option': return 'option';
      case 'optgroup': case 'fieldset': case 'details': return 'group';
      case 'textarea': return 'textbox';
      case 'img': return el.getAttribute('alt') === '' ? 'presentation' : 'img';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'p': return 'paragraph';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'article': return 'article';
      case 'dialog': return 'dialog';
      case 'form': return 'form';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return 'columnheader';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'hr': return 'separator';
      case 'output': return 'status';
      case 'label': case 'legend': return 'label';
      default: return 'generic';
    }
  };
  const roleOf = (el) => explicitRole(el) || implicitRole(el);

  const isActionable = (el) => {
    if (el.matches('a, button, input, select, textarea, label, summary, [tabindex], [onclick]')) return true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    const role = explicitRole(el);
    return !!role && ACTIONABLE_ROLES.has(role);
  };
  const actionableAncestor = (el) => {
    // Within the element's document: a frame's content does not act through the frame.
    for (let n = el, i = 0; n && i < 1000; i++) {
      if (isActionable(n)) return n;
      if (n.parentElement) { n = n.parentElement; continue; }
      const parent = n.parentNode;
      n = (parent && parent.nodeType === 11 && parent.host) ? parent.host : null;
    }
    return null;
  };

  const isRendered = (el) => {
    if (typeof el.checkVisibility === 'function') return el.checkVisibility({visibilityProperty: true});
    const cs = styleOf(el);
    return cs.display !== 'none' && cs.visibility !== 'hidden';
  };
  const childrenOf = (node) => {
    if (node.shadowRoot) return Array.from(node.shadowRoot.childNodes);
    if (node.localName === 'slot') {
      const assigned = node.assignedNodes({flatten: true});
      return assigned.length ? assigned : Array.from(node.childNodes);
    }
    return Array.from(node.childNodes);
  };
  const selectedText = (select) => Array.from(select.selectedOptions || []).map(o => o.label || o.text).join(' ');
  // The rendered text under `node` (the flat tree: shadow content, slotted nodes). With
  // `forName`, aria-labels, alts and embedded fields' values stand in for their content, and
  // `skip` (the element being named) contributes nothing. Stops early past `budget` chars.
  const textOf = (node, forName, skip, budget = 4 * MAX_TEXT, depth = 0) => {
    if (depth > 64) return '';
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1) return '';
    const el = node;
    if (el === skip) return '';
    const tag = el.localName;
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript' || tag === 'head') return '';
    if (!isRendered(el)) return '';
    if (forName) {
      if (el.getAttribute('aria-hidden') === 'true') return '';
      const label = norm(el.getAttribute('aria-label'));
      if (label) return ' ' + label + ' ';
      if (tag === 'img') return ' ' + norm(el.getAttribute('alt')) + ' ';
      if (isTextInput(el) || tag === 'textarea') return ' ' + el.value + ' ';
      if (tag === 'select') return ' ' + selectedText(el) + ' ';
      if (tag === 'input') return (el.type === 'button' || el.type === 'submit' || el.type === 'reset') ? ' ' + el.value + ' ' : '';
    } else if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      return '';
    }
    if (tag === 'br') return '\n';
    let s = '';
    for (const child of childrenOf(el)) {
      s += textOf(child, forName, skip, budget - s.length, depth + 1);
      if (s.length > budget) break;
    }
    return styleOf(el).display.startsWith('inline') ? s : ' ' + s + ' ';
  };

  const byIds = (el, attr) => {
    const ids = norm(el.getAttribute(attr));
    if (!ids) return null;
    const root = el.getRootNode();
    const found = ids.split(' ').map(id => root.getElementById ? root.getElementById(id) : null).filter(Boolean);
    return found.length ? found : null;
  };
  const nameOf = (el) => {
    const labelledBy = byIds(el, 'aria-labelledby');
    if (labelledBy) {
      const name = norm(labelledBy.map(r => norm(r.getAttribute('aria-label')) ||
        (isRendered(r) ? textOf(r, true, el) : r.textContent)).join(' '));
      if (name) return name;
    }
    const label = norm(el.getAttribute('aria-label'));
    if (label) return label;
    const tag = el.localName;
    if (tag === 'input') {
      const t = el.type;
      if (t === 'button' || t === 'submit' || t === 'reset') {
        return norm(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : norm(el.title));
      }
      if (t === 'image') return norm(el.alt) || norm(el.value) || 'Submit';
    }
    if (el.labels && el.labels.length) {
      const name = norm(Array.from(el.labels).map(l => textOf(l, true, el)).join(' '));
      if (name) return name;
    }
    if (tag === 'img' || tag === 'area') {
      const alt = norm(el.getAttribute('alt'));
      if (alt) return alt;
    }
    const captioned = {fieldset: 'legend', figure: 'figcaption', table: 'caption'}[tag];
    if (captioned) {
      const caption = Array.from(el.children).find(c => c.localName === captioned);
      if (caption) {
        const name = norm(textOf(caption, true, el));
        if (name) return name;
      }
    }
    const role = roleOf(el);
    // Content names the roles accname allows, and (a practical extension) any other element
    // a user acts on: a clickable div is known by its text.
    if (NAME_FROM_CONTENT.has(role) || (tag !== 'label' && isActionable(el) && !isTextInput(el) && tag !== 'textarea' && tag !== 'select')) {
      const name = clip(norm(textOf(el, true, null)));
      if (name) return name;
    }
    const title = norm(el.getAttribute('title'));
    if (title) return title;
    return norm(el.getAttribute('placeholder'));
  };
  const visibleText = (el) => {
    const tag = el.localName;
    if (tag === 'input') return (el.type === 'button' || el.type === 'submit' || el.type === 'reset') ? norm(el.value) : '';
    if (tag === 'textarea') return '';
    if (tag === 'select') return clip(norm(selectedText(el)));
    return clip(norm(textOf(el, false, null)));
  };

  const tri = (v) => v === 'true' ? true : v === 'false' ? false : v === 'mixed' ? 'mixed' : undefined;
  const isDisabled = (el) => {
    try { if (el.matches(':disabled')) return true; } catch (e) { /* not a form element */ }
    for (let n = el, i = 0; n && i < 1000; n = composedParent(n), i++) {
      if (n.getAttribute && n.getAttribute('aria-disabled') === 'true') return true;
    }
    return false;
  };
  const isInert = (el) => {
    for (let n = el, i = 0; n && i < 1000; n = composedParent(n), i++) if (n.hasAttribute('inert')) return true;
    return false;
  };
  const deepActive = () => {
    let active = document.activeElement;
    for (let i = 0; active && i < MAX_DEPTH; i++) {
      if (active.shadowRoot && active.shadowRoot.activeElement) { active = active.shadowRoot.activeElement; continue; }
      let inner = null;
      if (active.localName === 'iframe' || active.localName === 'frame') {
        try { inner = active.contentDocument; } catch (e) { inner = null; }
      }
      if (inner && inner.activeElement && inner.activeElement !== inner.body) { active = inner.activeElement; continue; }
      break;
    }
    if (!active || active === active.ownerDocument.body || active === active.ownerDocument.documentElement) return null;
    return active;
  };

  const cssString = (s) => '"' + s.replace(/["\\]/g, '\\$&') + '"';
  const selectorIn = (el) => {
    const root = el.getRootNode();
    const unique = (sel) => { try { return root.querySelectorAll(sel).length === 1; } catch (e) { return false; } };
    if (el.id && unique('#' + CSS.escape(el.id))) return '#' + CSS.escape(el.id);
    const testId = el.getAttribute('data-testid');
    if (testId && unique('[data-testid=' + cssString(testId) + ']')) return '[data-testid=' + cssString(testId) + ']';
    const name = el.getAttribute('name');
    if (name && unique(el.localName + '[name=' + cssString(name) + ']')) return el.localName + '[name=' + cssString(name) + ']';
    const parts = [];
    for (let node = el, i = 0; node && node.localName !== 'html' && i < 64; i++) {
      if (node !== el && node.id && unique('#' + CSS.escape(node.id))) { parts.unshift('#' + CSS.escape(node.id)); break; }
      let part = node.localName;
      const parent = node.parentNode;
      if (parent && parent.children) {
        const same = Array.from(parent.children).filter(c => c.localName === node.localName);
        if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(node) + 1) + ')';
      }
      parts.unshift(part);
      node = node.parentElement;
    }
    return parts.length ? parts.join(' > ') : el.localName;
  };
  const selectorOf = (el) => {
    const steps = [selectorIn(el)];
    for (let n = el, i = 0; i < MAX_DEPTH; i++) {
      const root = n.getRootNode();
      let container = null;
      if (root.host) container = root.host;
      else { try { container = root.defaultView && root.defaultView.frameElement; } catch (e) { container = null; } }
      if (!container) break;
      steps.unshift(selectorIn(container));
      n = container;
    }
    return steps.join(' >>> ');
  };
  const describeShort = (el) => {
    let d = el.localName;
    if (el.id) return d + '#' + el.id;
    if (typeof el.className === 'string' && el.className.trim()) d += '.' + el.className.trim().split(/\s+/).slice(0, 3).join('.');
    return d;
  };

  // Why a click at (x, y) would not reach `el`, or null when it would.
  const blockedAt = (el, box, x, y) => {
    if (isDisabled(el)) return 'disabled';
    if (isInert(el)) return 'inert';
    const inViewport = x >= 0 && y >= 0 && x < window.innerWidth && y < window.innerHeight;
    const hit = inViewport ? deepHit(x, y) : null;
    if (hit) {
      if (composedContains(el, hit)) return null;
      for (let n = hit, i = 0; n && i < 1000; n = composedParent(n), i++) {
        if (n.localName === 'label' && n.control === el) return null;
      }
    }
    if (box.width === 0 || box.height === 0 || !isRendered(el)) return 'hidden';
    if (!inViewport) return 'outside the viewport';
    if (styleOf(el).pointerEvents === 'none') return 'pointer-events: none';
    return hit ? 'covered by ' + describeShort(hit) : 'not hit at its point';
  };

  const describe = (el, point) => {
    const role = roleOf(el);
    const tag = el.localName;
    const box = boxOf(el);
    const at = point || {x: box.x + box.width / 2, y: box.y + box.height / 2};
    const info = {
      role, name: nameOf(el), text: visibleText(el), tag, selector: selectorOf(el), box,
      disabled: isDisabled(el), focused: deepActive() === el, editable: false,
    };
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      info.checked = el.indeterminate ? 'mixed' : el.checked;
    } else if (CHECKABLE.has(role)) {
      const checked = tri(el.getAttribute('aria-checked'));
      if (checked !== undefined) info.checked = checked;
      else if (role === 'checkbox' || role === 'radio' || role === 'switch') info.checked = false;
    }
    const pressed = tri(el.getAttribute('aria-pressed'));
    if (pressed !== undefined) info.pressed = pressed;
    const expanded = tri(el.getAttribute('aria-expanded'));
    if (typeof expanded === 'boolean') info.expanded = expanded;
    else if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') info.expanded = el.parentElement.open;
    if (tag === 'option') info.selected = el.selected;
    else if (SELECTABLE.has(role)) {
      const selected = tri(el.getAttribute('aria-selected'));
      if (typeof selected === 'boolean') info.selected = selected;
    }
    if (tag === 'input') info.input_type = el.type;
    if ((isTextInput(el) || tag === 'textarea') && !el.readOnly && !info.disabled) info.editable = true;
    if (el.isContentEditable && !info.disabled) info.editable = true;
    if ((tag === 'input' && !VALUELESS_INPUTS.has(el.type)) || tag === 'textarea' || tag === 'select') info.value = el.value;
    const blocked = blockedAt(el, box, at.x, at.y);
    info.receives_events = blocked === null;
    if (blocked !== null) info.blocked_reason = blocked;
    return info;
  };

  if (op === 'at') {
    const hit = deepHit(arg.x, arg.y);
    if (!hit) return null;
    let target = actionableAncestor(hit);
    if (!target) {
      // Nothing to act on at the top: a plain overlay may be covering something that is.
      const doc = hit.ownerDocument;
      const o = offsetOf(doc);
      for (const under of doc.elementsFromPoint(arg.x - o.x, arg.y - o.y)) {
        if (composedContains(under, hit)) continue;
        const candidate = actionableAncestor(under);
        if (candidate && !composedContains(candidate, hit)) { target = candidate; break; }
      }
    }
    if (!target) target = hit;
    // A click on a label acts on its control: describe the control.
    if (target.localName === 'label' && target.control) target = target.control;
    return describe(target, {x: arg.x, y: arg.y});
  }
  if (op === 'focused') {
    const active = deepActive();
    return active ? describe(active, null) : null;
  }
  if (op === 'find') {
    const role = norm(arg.role).toLowerCase();
    const name = norm(arg.name);
    const found = [];
    const walk = (root, depth) => {
      if (depth > MAX_DEPTH) return;
      for (const el of root.querySelectorAll('*')) {
        if (found.length >= MAX_FOUND) return;
        if (roleOf(el) === role) {
          const r = el.getBoundingClientRect();
          if (r.width > 0 && r.height > 0 && isRendered(el) && nameOf(el) === name) found.push(describe(el, null));
        }
        if (el.shadowRoot) walk(el.shadowRoot, depth + 1);
        if (el.localName === 'iframe' || el.localName === 'frame') {
          let inner = null;
          try { inner = el.contentDocument; } catch (e) { inner = null; }
          if (inner) walk(inner, depth + 1);
        }
      }
    };
    walk(document, 0);
    return found;
  }
  if (op === 'node') {
    // The node itself (not a description), for the listener facts (`listeners.rs`): the
    // innermost element hit at {x, y} (events start there), or the focused one for null.
    return arg ? deepHit(arg.x, arg.y) : deepActive();
  }
  throw new Error('unknown element operation ' + op);
}
