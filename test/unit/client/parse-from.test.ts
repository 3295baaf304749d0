import { decodeEntities, htmlToText, parseFrom } from '../../../client/src';

describe('parseFrom', () => {
  it.each([
    ['Example Shop <noreply@example.com>', { name: 'Example Shop', address: 'noreply@example.com' }],
    ['"Doe, Jane" <Jane.Doe@Example.COM>', { name: 'Doe, Jane', address: 'jane.doe@example.com' }],
    ['"Say \\"hi\\"" <hi@example.com>', { name: 'Say "hi"', address: 'hi@example.com' }],
    ['<bare@example.com>', { name: '', address: 'bare@example.com' }],
    ['bare@example.com', { name: '', address: 'bare@example.com' }],
    ['bare@example.com (Old Style)', { name: 'Old Style', address: 'bare@example.com' }],
    ['サンプル株式会社 <info@sample-kk.example>', { name: 'サンプル株式会社', address: 'info@sample-kk.example' }],
    ['', { name: '', address: '' }],
    ['Undisclosed sender', { name: 'Undisclosed sender', address: '' }],
  ])('splits %j', (from, expected) => {
    expect(parseFrom(from)).toEqual(expected);
  });
});

describe('decodeEntities and htmlToText', () => {
  it('decodes named and numeric references, and leaves unknown ones', () => {
    expect(decodeEntities('a&amp;b &lt;c&gt; &#56;&#x31; &rsquo; &unknown;')).toBe('a&b <c> 81 ’ &unknown;');
  });

  it('turns blocks into lines and drops styles', () => {
    expect(htmlToText('<style>p{color:red}</style><p>Hello&nbsp;there</p><div>Code: <b>123</b></div>line<br>two')).toBe(
      'Hello there\nCode: 123\nline\ntwo',
    );
  });
});
