import { closest, parseArgs, parseDuration, printable, UsageError } from '../../../client/src/cli-args';

describe('the CLI command line', () => {
  it('removes terminal control sequences from printed text, keeping newlines and tabs', () => {
    const hostile = 'line one\n\x1b[1A\x1b[2Khidden\x1b]52;c;ZXZpbA==\x07\tok\u009b31m\u202Eevil\r\n';
    const shown = printable(hostile);
    expect(shown).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(shown).toBe('line one\n[1A[2Khidden]52;c;ZXZpbA==\tok31mevil\n');
  });

  it('refuses an unknown option, suggesting the closest known one', () => {
    const known = new Set(['json', 'help', 'version', 'subject', 'timeout']);
    expect(() => parseArgs(['--subjct', 'x'], known)).toThrow(new UsageError('unknown option --subjct (did you mean --subject?)'));
    expect(() => parseArgs(['--zzzzzzzz'], known)).toThrow(new UsageError('unknown option --zzzzzzzz'));
    expect(() => parseArgs(['-x'], known)).toThrow(UsageError);
    expect(parseArgs(['-h'], known).options.get('help')).toBe(true);
    expect(closest('timout', known)).toBe('timeout');
  });

  it('refuses a zero duration', () => {
    expect(() => parseDuration('0s')).toThrow(UsageError);
    expect(parseDuration('1500ms')).toBe(1500);
  });
});
