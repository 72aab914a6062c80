// Asking before what cannot be taken back (giving up a race or a daily attempt): the
// question takes the button's place, so the second tap of a double tap lands on words,
// and "Keep playing" comes first and takes the focus, so a stray Enter keeps the game
// going. Escape takes the question back (the screens that ask listen for it).

/** The question with its two answers; their actions are ``<action>-no`` and ``<action>-yes``. */
export function confirmHtml(action, question, yes, no) {
  return `<span class="confirm" role="group" aria-label="${escape(question)}"><span>${escape(question)}</span>
    <button data-action="${action}-no" data-autofocus>${escape(no)}</button>
    <button data-action="${action}-yes" class="danger">${escape(yes)}</button></span>`;
}

/** Put the focus where the question wants it, once it is on the screen. */
export function focusAnswer(root) {
  root.querySelector("[data-autofocus]")?.focus();
}

function escape(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
