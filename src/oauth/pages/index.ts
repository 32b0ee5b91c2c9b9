/**
 * The pages a person sees: sign-in, consent, the device flow, errors.
 * @module
 */
export { PAGE_HEADERS, esc } from './layout';
export { signInPage, consentPage, errorPage, type ClientView, type AskedPermission } from './interaction';
export { deviceInputPage, deviceConfirmPage, deviceDonePage } from './device';
export { permissionWords, permissionsIn } from './words';
