import { InvalidArgumentError } from 'commander';

/** A commander parser for a whole number in [min, max] (a bad one is a usage error, exit 2). */
export function integerOption(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value) || n < min || n > max)
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return n;
  };
}
