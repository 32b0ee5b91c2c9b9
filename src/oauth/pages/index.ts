/**
 * The pages a person sees: sign-in, consent, the device flow, errors.
 * @module
 */
export { PAGE_HEADERS } from './layout';
export { signInPage, consentPage, cliConsentPage, errorPage, type ClientView } from './interaction';
export { deviceInputPage, deviceConfirmPage, deviceDonePage } from './device';
export { permissionsIn } from './words';
