/** The service's icon: a hexagon in the header's colours. */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 1.5 28.6 8.8v14.4L16 30.5 3.4 23.2V8.8z" fill="#1d2733"/><path d="M16 8.5 22.5 12.25v7.5L16 23.5 9.5 19.75v-7.5z" fill="#0b6bcb"/></svg>';
