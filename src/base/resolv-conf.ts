import { readFileSync } from 'node:fs';

/** What a resolv.conf says (resolv.conf(5)): nameservers, search domains and options, in order. */
export interface ResolvConf {
  nameservers: string[];
  searches: string[];
  options: string[];
}

/** Parses resolv.conf text; the last `search`/`domain` line wins, as in glibc. */
export function parseResolvConf(text: string): ResolvConf {
  const conf: ResolvConf = { nameservers: [], searches: [], options: [] };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    if (line === '') continue;
    const [key, ...values] = line.split(/\s+/);
    if (key === 'nameserver' && values[0]) conf.nameservers.push(values[0]);
    else if (key === 'search' || key === 'domain') conf.searches = values.map((v) => v.replace(/\.$/, ''));
    else if (key === 'options') conf.options.push(...values);
  }
  return conf;
}

/** Reads and parses a resolv.conf file; an unreadable one is empty (no nameservers). */
export function readResolvConf(path = '/etc/resolv.conf'): ResolvConf {
  try {
    return parseResolvConf(readFileSync(path, 'utf8'));
  } catch {
    return { nameservers: [], searches: [], options: [] };
  }
}

/** Renders resolv.conf text, as the kubelet writes a pod's. */
export function formatResolvConf(conf: ResolvConf): string {
  const lines = conf.nameservers.map((s) => `nameserver ${s}`);
  if (conf.searches.length > 0) lines.push(`search ${conf.searches.join(' ')}`);
  if (conf.options.length > 0) lines.push(`options ${conf.options.join(' ')}`);
  return `${lines.join('\n')}\n`;
}
