// Files embedded in the binary through import attributes.
declare module "*.sql" {
  const text: string;
  export default text;
}
