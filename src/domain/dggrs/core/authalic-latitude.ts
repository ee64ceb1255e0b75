/**
 * Geodetic <-> authalic latitude on the WGS84 ellipsoid, using Karney's order-6 series in the
 * third flattening ("On auxiliary latitudes", arXiv 2212.05818, eqs. A19/A20).
 * Angles are in radians.
 */

export const WGS84_A = 6378137;
export const WGS84_INV_F = 298.257223563;
export const WGS84_B = WGS84_A - WGS84_A / WGS84_INV_F;

// Rational coefficients, row k holding the polynomial in n of the k-th Fourier term.
const GEODETIC_TO_AUTHALIC: readonly number[] = [
  -4 / 3, -4 / 45, 88 / 315, 538 / 4725, 20824 / 467775, -44732 / 2837835,
  34 / 45, 8 / 105, -2482 / 14175, -37192 / 467775, -12467764 / 212837625,
  -1532 / 2835, -898 / 14175, 54968 / 467775, 100320856 / 1915538625,
  6007 / 14175, 24496 / 467775, -5884124 / 70945875,
  -23356 / 66825, -839792 / 19348875,
  570284222 / 1915538625,
];

const AUTHALIC_TO_GEODETIC: readonly number[] = [
  4 / 3, 4 / 45, -16 / 35, -2582 / 14175, 60136 / 467775, 28112932 / 212837625,
  46 / 45, 152 / 945, -11966 / 14175, -21016 / 51975, 251310128 / 638512875,
  3044 / 2835, 3802 / 14175, -94388 / 66825, -8797648 / 10945935,
  6059 / 4725, 41072 / 93555, -1472637812 / 638512875,
  768272 / 467775, -455935736 / 638512875,
  4210684958 / 1915538625,
];

function fourierCoefficients(c: readonly number[]): Float64Array {
  const n = (WGS84_A - WGS84_B) / (WGS84_A + WGS84_B);
  const cp = new Float64Array(6);
  let d = n;
  // Horner in n, evaluated in the same order as the reference so the last bits agree.
  cp[0] = (((((c[5]! * n + c[4]!) * n + c[3]!) * n + c[2]!) * n + c[1]!) * n + c[0]!) * d; d *= n;
  cp[1] = ((((c[10]! * n + c[9]!) * n + c[8]!) * n + c[7]!) * n + c[6]!) * d; d *= n;
  cp[2] = (((c[14]! * n + c[13]!) * n + c[12]!) * n + c[11]!) * d; d *= n;
  cp[3] = ((c[17]! * n + c[16]!) * n + c[15]!) * d; d *= n;
  cp[4] = (c[19]! * n + c[18]!) * d; d *= n;
  cp[5] = c[20]! * d;
  return cp;
}

const TO_AUTHALIC = fourierCoefficients(GEODETIC_TO_AUTHALIC);
const TO_GEODETIC = fourierCoefficients(AUTHALIC_TO_GEODETIC);

function clenshaw(cp: Float64Array, phi: number): number {
  const s = Math.sin(phi);
  const c = Math.cos(phi);
  const x = 2 * (c - s) * (c + s);
  // DGGAL's recurrence omits one "- b" term in its second step; reproduced for bit agreement.
  let u0 = x * cp[5]! + cp[4]!;
  let u1 = x * u0 + cp[3]!;
  u0 = x * u1 - u0 + cp[2]!;
  u1 = x * u0 - u1 + cp[1]!;
  u0 = x * u1 - u0 + cp[0]!;
  return phi + 2 * s * c * u0;
}

export function geodeticToAuthalic(phi: number): number {
  return clenshaw(TO_AUTHALIC, phi);
}

export function authalicToGeodetic(xi: number): number {
  return clenshaw(TO_GEODETIC, xi);
}
