/**
 * Mail that tries to lay a link over the page showing it (clickjacking from inside the mail):
 * each moves or grows a link, or makes it invisible, with what an allowlist of inline styles and
 * legacy attributes might let through.
 */
const target = 'https://evil.example/next';
const block = (style: string, content = '&nbsp;') => `<a href="${target}" style="display:block;${style}">${content}</a>`;

export const overlayVectors: [string, string][] = [
  ['negative margins', block('margin-top:-400px;margin-left:-400px;width:2000px;height:1200px')],
  ['negative margin on a cell', `<table><tr><td style="margin-top:-300px;padding:0"><a href="${target}" style="display:block;height:500px;width:900px;margin:-200px 0 0 -300px">x</a></td></tr></table>`],
  ['viewport units', block('width:100vw;height:100vh;margin-top:-50vh')],
  ['vmin and vmax', block('width:200vmax;height:200vmin')],
  ['viewport units in a shorthand', block('width:600px;height:300px;margin:-40vh -30vw 0 -30vw')],
  ['raised by vertical-align', `<p><a href="${target}" style="display:inline-block;width:700px;height:200px;vertical-align:250px">x</a></p>`],
  ['raised by a percentage vertical-align', `<p style="line-height:400px"><a href="${target}" style="display:inline-block;width:700px;height:120px;vertical-align:90%">x</a></p>`],
  ['huge glyphs on a zero line height', `<p style="line-height:0;margin:0"><a href="${target}" style="font-size:600px">W</a></p>`],
  ['negative letter-spacing', `<p style="text-align:right"><a href="${target}" style="letter-spacing:-60px;font-size:80px">WWWWWWWWWWWWWWWWWWWWWWWW</a></p>`],
  ['right-aligned text wider than the container', `<p style="text-align:right;white-space:nowrap"><a href="${target}" style="font-size:120px">WWWWWWWWWWWWWWW</a></p>`],
  ['transparent colour keyword', `<a href="${target}" style="color:transparent;font-size:40px">invisible</a>`],
  ['transparent 8-digit colour', `<a href="${target}" style="color:#00000000;font-size:40px">invisible</a>`],
  ['transparent 4-digit colour', `<a href="${target}" style="color:#0000;font-size:40px">invisible</a>`],
  ['transparent rgba()', `<a href="${target}" style="color:rgba(0,0,0,0);font-size:40px">invisible</a>`],
  ['transparent hsla() and slash alpha', `<a href="${target}" style="color:hsla(0,0%,0%,0)">a</a><a href="${target}" style="color:rgb(0 0 0 / 0)">b</a>`],
  ['transparent through the parent', `<span style="color:rgba(255,255,255,0.01)"><a href="${target}" style="font-size:40px">invisible</a></span>`],
  ['positioned', block('position:fixed;top:0;left:0;width:100%;height:100%;z-index:9999')],
  ['transformed', block('transform:translate(-300px,-300px);width:1200px;height:900px')],
  ['floated with a negative margin', block('float:left;margin-left:-300px;margin-top:-200px;width:1000px;height:600px')],
  ['outline and box-shadow', block('outline:2000px solid transparent;box-shadow:0 0 0 2000px transparent')],
  ['image inside a link, pulled up', `<a href="${target}"><img src="cid:x" width="1200" height="800" style="margin-top:-500px;margin-left:-400px"></a>`],
];

/**
 * Mail wider than the container that overflows toward its left (right-to-left text, a
 * right-aligned table): legitimate layout that no allowlist of sizes can keep inside a narrower
 * container. A host that shows mail beside its own controls clips the container
 * (`overflow: auto`), as SECURITY.md says; the proof shows these in such a container.
 */
export const widerThanContainerVectors: [string, string][] = [
  ['right to left, wider than the container', `<div dir="rtl"><div style="width:1600px"><a href="${target}" style="display:block;height:600px">x</a></div></div>`],
  ['right-aligned table wider than the container', `<table align="right" width="1600"><tr><td height="600"><a href="${target}" style="display:block;height:600px">x</a></td></tr></table>`],
  ['right-aligned text wider than the container, right to left', `<p dir="rtl" style="white-space:nowrap"><a href="${target}" style="font-size:48px">WWWWWWWWWWWWWWWWWWWWWWWWWW</a></p>`],
];
